"""The repository of games: load a table's state, save its new events.

Loading is the store's load path with this process's state cache
(:mod:`service.store.load`). Saving is the append of the events decided on
a state, at that state's version, and handing the game over to the workers:
the cached state, the index's status, and the follow-up the append asked
for (unless the append projected itself, see :meth:`GameRepository.projection`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import asdict, replace
from typing import Final, Protocol

from service.config import Settings
from service.engines import table
from service.engines.base import JSON, Event
from service.metrics import APPEND_SECONDS
from service.store import (
    Append,
    AppendResult,
    Dispatch,
    EventStore,
    GameNotFound,
    Hooks,
    Projection,
    Record,
    StateCache,
    StoredEvent,
    VersionConflict,
    clock,
    keys,
    load_game,
)
from service.webhooks.notices import notices

log = logging.getLogger("cardroom.games")

CONFLICT_RETRIES: Final = 5
"""How often a command without an expected version is re-decided after losing a race."""

Followup = Callable[[str, int], None]
StartDrain = Callable[[int, str], None]
"""``start_drain(slot, token)``: enqueue the drain job of a slot an append took."""
Respond = Callable[[table.Table, Sequence[Event]], str]
"""Renders a command's answer from the new state and its events (kept with its key)."""


class Followups(Protocol):
    def due_key(self, game_id: str) -> str: ...


class Workers(Protocol):
    """What the repository needs of the process's wiring (:class:`service.runtime.Runtime`)."""

    @property
    def settings(self) -> Settings: ...

    @property
    def followups(self) -> Followups: ...

    def append_dispatch(self) -> Dispatch | None: ...

    def enqueue_followup(self, game_id: str, version: int = 0) -> None: ...

    def enqueue_drain(self, slot: int, token: str) -> None: ...

    def enqueue_delivery(self, game_id: str, delivery_id: str, token: int) -> None: ...


class GameRepository:
    """Load and save the games of ``store``; one per process, thread-safe.

    ``followup(game_id, version)`` is called after an append that set its
    game's follow-up marker anew, unless the append script put the game on the
    drains' list itself (:meth:`service.runtime.Runtime.append_dispatch`);
    ``start_drain(slot, token)`` when that script took a free drain slot.
    Both default to enqueueing at once; the HTTP layer passes ones that
    enqueue once the answer has gone out, to keep them off a move's latency.
    """

    def __init__(
        self,
        workers: Workers,
        store: EventStore,
        followup: Followup | None = None,
        start_drain: StartDrain | None = None,
    ) -> None:
        self.workers = workers
        self.store = store
        self.cache: StateCache = store.states
        self.followup: Followup = followup or workers.enqueue_followup
        self.start_drain: StartDrain = start_drain or workers.enqueue_drain

    # -- loading ---------------------------------------------------------------
    def load(self, game_id: str) -> table.Table:
        """The current state; :class:`GameNotFound` for an unknown (or malformed) id."""
        if not keys.GAME_ID_RE.fullmatch(game_id):
            raise GameNotFound(game_id)
        return load_game(self.store, game_id, self.cache)

    def cached(self, game_id: str) -> tuple[table.Table, int | None] | None:
        """The state this process last loaded or saved, and its last entry's time."""
        return self.cache.entry(game_id)

    def events(
        self, game_id: str, after: int, limit: int | None, state: table.Table | None
    ) -> tuple[table.Table, list[StoredEvent]]:
        """The state (``state`` if given, else loaded now) and the stored events after
        ``after``, never past the state's version (so redacting them against that
        state is consistent)."""
        state = state if state is not None else self.load(game_id)
        span = max(state.version - after, 0)
        if limit is not None:
            span = min(span, limit)
        stored = self.store.read(game_id, after, span) if span else []
        return state, stored

    def list_games(
        self, game: str | None, status: str | None, limit: int, cursor: str | None
    ) -> tuple[list[JSON], str | None]:
        """A page of the games index, newest first, and the next page's cursor; each
        game with the time of its latest event (``last_event_at``)."""
        items, next_cursor = self.store.list_games(game, status, limit, cursor)
        times = self.store.last_event_times([item.game_id for item in items])
        return [
            {**asdict(item), "last_event_at": at} for item, at in zip(items, times, strict=True)
        ], next_cursor

    # -- saving ------------------------------------------------------------------
    def create(self, seed: bytes, events: list[Event], new_id: Callable[[], str]) -> table.Table:
        """Write a drafted table: its seed, its first event, its index entry
        (``new_id()`` draws another id should the drafted one be taken)."""
        while True:
            created = events[0]
            assert isinstance(created, table.GameCreated)
            self.store.put_secret(created.game_id, seed)
            dispatch = self.workers.append_dispatch()
            try:
                result = self.store.append(created.game_id, events, 0, dispatch=dispatch)
            except VersionConflict:  # 96 random bits collided: draw another id
                events = [replace(created, game_id=new_id()), *events[1:]]
                continue
            break
        game_id = created.game_id
        created_ms = result.at_ms or self.store.now_ms(game_id)  # Redis's time
        self.store.index_game(game_id, created.game, "seating", created_ms)
        touch_quietly(self.store, game_id, created_ms)
        state = table.fold(events)
        self._hand_over(None, state, result, dispatch)
        return state

    def save(
        self,
        state: table.Table,
        events: list[Event],
        idempotency_key: str | None = None,
        respond: Respond | None = None,
        last_entry: str | None = None,
    ) -> tuple[table.Table, AppendResult]:
        """Append ``events`` at ``state``'s version and hand the game over.

        ``respond`` renders the answer, kept with the idempotency key so a
        retry gets the same one. ``last_entry``: the id of the entry a cached
        ``state`` ends with (the append checks the stream still ends there)."""
        new_state = table.fold(events, state)
        response = respond(new_state, events) if respond is not None else None
        dispatch = self.workers.append_dispatch()
        decided = notices(state, new_state, events)
        append = Append(
            state.game_id,
            state.version,
            events=events,
            record=None if idempotency_key is None else Record(idempotency_key, response),
            last_entry=last_entry,
            projection=self.projection(state, new_state, events),
            dispatch=dispatch,
            hooks=Hooks(decided) if decided else None,
        )
        with APPEND_SECONDS.time():
            result = self.store.write(append)
        if result.duplicate:
            return new_state, result
        if any(isinstance(e, table.SeedRevealed) for e in events):
            # the event now holds the seed: the stored copy would only be a second one
            self.store.delete_secret(state.game_id)
        self._hand_over(state, new_state, result, dispatch)
        return new_state, AppendResult(result.first_version, result.last_version, False, response)

    def commit(
        self,
        game_id: str,
        decide: Callable[[table.Table], list[Event]],
        expected_version: int | None,
        idempotency_key: str | None = None,
        respond: Respond | None = None,
        loaded: table.Table | None = None,
        last_entry: str | None = None,
    ) -> tuple[table.Table, list[Event], AppendResult]:
        """Decide on the current state (``loaded``, if just read) and save;
        re-decide after a lost race unless the caller pinned ``expected_version``.

        ``last_entry`` says ``loaded`` is this process's cached state, not read
        just now (see :meth:`service.seataccess.SeatAccess.seat_for_move`): the
        append then also checks that the stream still ends with that entry, and
        anything the cached state would answer other than an append (another version than the one
        expected, a decision refused, a lost race) is asked again of the
        stream's current state, as if the cached state had not been there."""
        attempts = 1 if expected_version is not None else CONFLICT_RETRIES
        attempt = 0
        state = loaded
        while True:
            if state is None:
                state = self.load(game_id)
            try:
                if expected_version is not None and state.version != expected_version:
                    raise VersionConflict(game_id, expected_version, state.version)
                events = decide(state)
                new_state, result = self.save(state, events, idempotency_key, respond, last_entry)
            except Exception as exc:
                if last_entry is None:
                    attempt += 1
                    if not isinstance(exc, VersionConflict) or attempt >= attempts:
                        raise
                state, last_entry = None, None
                continue
            return new_state, events, result

    def projection(
        self, old: table.Table, new: table.Table, events: Sequence[Event]
    ) -> Projection | None:
        """What the append needs to project itself, when folding it is all a
        follow-up would do (see :class:`service.store.Projection`); else ``None``.

        Not when anything else falls to the workers: a system step due (a
        deal, a settlement, the reveal), a bot or a seat marked away to act,
        the game over, or events a follow-up keeps notes of beside the fold
        (deals for the fairness counts, settled pots for the chip ledger)."""
        if not self.workers.settings.project_on_append or not self.store.projects_appends:
            return None
        if new.over or not new.seated or table.pending(new) is not None:
            return None
        if any(getattr(e, "is_deal", False) or e.type == "PotSettled" for e in events):
            return None
        to_act = tuple(sorted(new.engine.to_act(new.engine_state)))
        if any(table.plays_automatically(new, seat) for seat in to_act):
            return None
        begun, idle = table.turn_changes(new, old.version)
        limit = new.turn_timeout_s
        return Projection(
            state=new,
            begun=begun,
            idle=idle,
            to_act=to_act,
            limit_ms=None if limit is None else clock.limit_ms(limit),
            due_key=self.workers.followups.due_key(new.game_id),
        )

    def _hand_over(
        self,
        old: table.Table | None,
        new: table.Table,
        result: AppendResult,
        dispatch: Dispatch | None = None,
    ) -> None:
        """Bookkeeping after a successful append: the cached state, the projection
        lag, the index, the workers.

        A follow-up is started only when the append set the game's marker anew;
        otherwise the follow-up already queued or running sees this append
        before it lets the marker go (see :mod:`service.store.followups`). Given a
        ``dispatch``, the append script itself put the game on the drains' list:
        only a drain job for the slot it took is left to enqueue."""
        self.cache.put(new, result.at_ms)
        if result.queued:
            self._deliver(new.game_id, result)
        if not result.lag_counted:  # a cluster: the lag keys are not in the game's slot
            self.store.lag.appended(new.game_id, new.version - (old.version if old else 0))
        if old is not None and old.status != new.status:
            self.store.set_status(new.game_id, new.status)
        if not result.fresh:
            return
        try:
            if result.drain_slot is None:
                self.followup(new.game_id, new.version)
            elif result.drain_slot >= 0 and dispatch is not None:
                self.start_drain(result.drain_slot, dispatch.token)
        except Exception:  # the move stands; the workers' reconciliation finds the game
            log.exception("could not enqueue the follow-up of game %s", new.game_id)

    def _deliver(self, game_id: str, result: AppendResult) -> None:
        """Have the workers send the webhook deliveries the append queued (on a
        cluster, first put them in the due set: the script could not). A
        failure here loses nothing on a standalone Redis: the sweep finds them."""
        at_ms = result.at_ms or 0
        try:
            if not self.store.projects_appends:
                for delivery_id in result.queued:
                    self.store.hooks.schedule(game_id, delivery_id, at_ms)
            self.workers.enqueue_delivery(game_id, result.queued[-1], at_ms)
        except Exception:
            log.exception("could not enqueue the webhook deliveries of game %s", game_id)


def touch_quietly(store: EventStore, game_id: str, at_ms: int | None = None) -> None:
    """Note that a person acted at the table (now, by Redis's clock, unless
    ``at_ms``); bookkeeping only, so a failure is logged, never raised."""
    try:
        store.note_activity(game_id, at_ms)
    except Exception:
        log.exception("could not note activity in game %s", game_id)
