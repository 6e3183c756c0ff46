"""RQ jobs: everything that happens between seats' moves.

Every job is safe to run twice and safe to race with another worker: each
write is either an append with an expected version (a duplicate is refused
by the store and ignored here) or an idempotent write (``HSETNX`` into the
ledger, a snapshot that only moves forward).

A game has at most one follow-up queued or running (see
:mod:`service.store.followups`): :func:`process_game` goes round until the game's
projection is current and nothing is left to do now, sets the game's timer
to its next due time (a bot's thinking delay, a turn timeout) and only then
lets the game's marker go. The follow-ups run in drain jobs
(:func:`drain_followups`), each serving the games on the drains' list one
after another.

A move after which nothing is left to do but its fold never reaches the
workers: its append projects itself, writing what :func:`project_round` and
the end of the round would (the snapshot, the turn marks, the timer; see
:class:`service.store.Projection`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, cast

from service.answers import on_revealed
from service.engines import table
from service.engines.base import JSON, RuleError
from service.fairness import projection as fairness
from service.store import (
    EventStore,
    LoadParts,
    StoredEvent,
    VersionConflict,
    keys,
)
from service.store.drains import LOST
from service.store.readmodel import ReadModel, turn_deadline_ms, turn_field, turn_mark

from .context import WorkerContext, context

log = logging.getLogger("cardroom.jobs")

MAX_ROUNDS: Final = 512
"""Rounds one follow-up takes at most before the game goes to the back of the
drains' list (a guard: a long match of bots without delay takes more)."""
DRAIN_MAX_S: Final = 2.0
"""How long one drain job serves the list at most before it hands over to a
fresh job: RQ's own records (its heartbeat, the job's timeout) stay those of a
short job, and drains queued behind a busy one get their turn."""


def drain_followups(slot: int, token: str) -> JSON:
    """Serve the drains' list from ``slot``: the follow-up of each game on it,
    one after another (:func:`process_game`); once the list is empty, wait up
    to ``CARDROOM_FOLLOWUP_LINGER_S`` for more, then free the slot and end.

    A follow-up that raises ends the job as a failed one naming the game (so
    it is logged, kept and retried as any failed follow-up) after the rest of
    the list is handed to a fresh drain."""
    started = time.monotonic()
    drains = context().runtime.drains
    served = 0
    lingered = False
    renewed = started
    # While it lingers and games keep coming, the next is waited for at once (one
    # already on the list comes back at once): no ``take`` in between while the
    # slot's lease, which a take renews, is fresh.
    waiting = False
    while True:
        if waiting and time.monotonic() - renewed < drains.lease_ms / 2000:
            game_id = drains.wait(drains.linger_s)
            lingered = True
        else:
            taken = drains.take(slot, token)
            renewed = time.monotonic()
            if taken is LOST:
                break  # the slot's lease ran out and another drain took over
            game_id = cast(str | None, taken)
            if game_id is None and served and not lingered and drains.linger_s > 0:
                lingered = True
                game_id = drains.wait(drains.linger_s)
        waiting = game_id is not None and lingered
        if game_id is None:
            if drains.release(slot, token):
                break
            continue
        lingered = False
        try:
            process_game(game_id)
        except Exception:
            _blame(game_id)
            drains.hand_over(slot, token)
            raise
        served += 1
        if time.monotonic() - started > DRAIN_MAX_S:
            drains.hand_over(slot, token)
            break
    return {"slot": slot, "served": served}


def _blame(game_id: str) -> None:
    """Name the game in the running job's meta: the failure handler and the
    failed-jobs registry then tell which follow-up failed."""
    from rq import get_current_job

    job = get_current_job()
    if job is not None:
        job.meta.update({"game_id": game_id, "version": None})
        try:
            job.save_meta()  # type: ignore[no-untyped-call]
        except Exception:  # the failure is logged with the game all the same
            log.debug("could not save the failed drain's meta", exc_info=True)


def process_game(game_id: str) -> JSON:
    """The follow-up of a game: rounds of system steps, projection, bots and
    timeouts until nothing is left to do now; then the game's timer is set to
    its next due time and its marker let go (unless something happened
    meanwhile: then one more round).

    A round that finds nothing to do costs two round trips to Redis: one
    read (the marker, the turn marks and the events not yet projected) and
    one write (the projection, the timer and letting the marker go)."""
    started = time.perf_counter()
    followups = context().runtime.followups
    done: dict[str, int] = {"steps": 0, "bots": 0, "timeouts": 0}
    rounds = 0
    version = 0
    while True:
        rounds += 1
        round_ = project_round(game_id)
        state, starts, writes = round_.state, round_.starts, round_.writes
        version = state.version
        acted, due_ms = _next_action(
            game_id, state, starts, round_.now_ms, before_acting=writes.send
        )
        if acted is None and state.server_seed is not None:
            writes.send()
            on_revealed(context().store, game_id)  # ended and revealed: answers never change
        if acted is not None:
            done[acted] += 1
        elif writes.send_with_finish(followups, game_id, version, round_.seen, due_ms):
            break
        if rounds >= MAX_ROUNDS:
            # Back on the drains' list, its marker still held: the games behind it
            # get their turn, then it goes on.
            context().runtime.enqueue_followup(game_id, version)
            break
    outcome: JSON = {"game_id": game_id, "version": version, "rounds": rounds, **done}
    log.debug(
        "job",
        extra={
            "job": "process_game",
            "game_id": game_id,
            "version": version,
            "rounds": rounds,
            "outcome": "ok",
            "duration_ms": round((time.perf_counter() - started) * 1000, 2),
        },
    )
    return outcome


def _next_action(
    game_id: str,
    state: table.Table,
    starts: dict[int, int],
    now: int,
    before_acting: Callable[[], None] = lambda: None,
) -> tuple[str | None, int | None]:
    """Take the one thing due at ``now`` (Redis's time as the round read it: a
    system step, a bot's move, a timed-out turn's move) and say which; or
    nothing, and when something next falls due. ``before_acting`` runs first
    when something is to be done."""
    ctx = context()
    if table.pending(state) is not None:
        before_acting()
        ctx.store.states.put(state)
        if ctx.service.advance(game_id):
            return "steps", None
    if state.over or not state.seated:
        return None, None
    delay_s = state.bot_delay_s
    delay_ms = int((ctx.runtime.settings.bot_delay_s if delay_s is None else delay_s) * 1000)
    limit = state.turn_timeout_s
    due: list[int] = []
    for seat in sorted(_to_act(state)):
        began = starts.get(seat)
        if _automatic(state, seat):
            at = (began if began is not None else now) + delay_ms
            if at > now:
                due.append(at)
                continue
            move = state.engine.bot_move(state.engine_state, seat)
            before_acting()
            _play(game_id, seat, move, state, timed_out=False)
            return "bots", None
        if limit is None or began is None:
            continue
        at = turn_deadline_ms(began, limit)
        if at > now:
            due.append(at)
            continue
        move = state.engine.timeout_move(state.engine_state, seat)
        before_acting()
        _play(game_id, seat, move, state, timed_out=True)
        return "timeouts", None
    return None, min(due, default=None)


# -- projection ---------------------------------------------------------------------
"""The last state of each game this process projected (and saved as its
snapshot), with its last entry's time: a round reads only the events after
it (or after a newer snapshot another worker saved), like the API's load."""


class Writes:
    """A round's writes, queued on one pipeline and sent once."""

    def __init__(self, pipe: Any) -> None:
        self.pipe = pipe
        self.sent = False
        self.then: list[Callable[[], None]] = []
        """What to do once the writes have landed."""

    def send(self) -> None:
        if not self.sent:
            self.sent = True
            self.pipe.execute()
            self._landed()

    def _landed(self) -> None:
        for step in self.then:
            step()

    def send_with_finish(
        self, followups: Any, game_id: str, version: int, seen: str, due_ms: int | None
    ) -> bool:
        """Send the writes with the end of the round (see
        :meth:`service.store.followups.Followups.finish_round`); True when the
        marker was let go."""
        if self.sent:
            return bool(followups.finish_round(game_id, version, seen, due_ms))
        self.sent = True
        followups.queue_finish(self.pipe, game_id, version, seen, due_ms)
        released = bool(self.pipe.execute()[-1])
        self._landed()
        return released


@dataclass
class Round:
    state: table.Table
    starts: dict[int, int]
    """When each seat's current turn began (ms)."""
    seen: str
    """The game's follow-up marker as the round began."""
    now_ms: int
    """Redis's time as the round read the game (on its master): the one clock
    its bots' delays and turn limits are measured by."""
    writes: Writes
    """The projection's writes, not sent yet."""


def project(game_id: str) -> table.Table:
    """Fold the events after the snapshot into a newer snapshot (see
    :func:`project_with_starts`)."""
    return project_with_starts(game_id)[0]


def project_with_starts(game_id: str) -> tuple[table.Table, dict[int, int]]:
    """Fold the events after the snapshot into a newer snapshot; the state and
    when each seat's current turn began (ms)."""
    round_ = project_round(game_id, begin=False)
    round_.writes.send()
    return round_.state, round_.starts


def project_round(game_id: str, *, begin: bool = True) -> Round:
    """Begin a follow-up's round (with ``begin``: see
    :meth:`service.store.followups.Followups.begin_round`) and fold the events not
    yet projected onto the snapshot, and read Redis's time (see
    :mod:`service.store.clock`): one round trip. The writes of the
    projection (the new snapshot, the read model's extras, the lag) are
    queued, not sent.

    While folding it keeps the read model's extras: when each seat's current
    turn began (for bots' delays and timeouts) and the chip ledger of settled
    Azi pots.
    """
    ctx = context()
    seen, now_ms, marks, parts = _read_round(ctx, game_id, begin)
    writes = Writes(ctx.store.readmodel.pipeline())
    state = parts.base
    if parts.events:
        state = _fold_tail(ctx, game_id, parts, marks, writes)
    assert state is not None
    return Round(state, _starts(marks), seen, now_ms, writes)


def _read_round(
    ctx: WorkerContext, game_id: str, begin: bool
) -> tuple[str, int, dict[str, str], LoadParts]:
    """The round's one round trip: the marker (with ``begin``), Redis's time, the
    turn marks and the events after the state this worker projected last."""
    store: EventStore = ctx.store
    model = store.readmodel
    followups = ctx.runtime.followups
    projected = ctx.projected.entry(game_id)
    pipe = model.pipeline()
    if begin:
        followups.queue_begin(pipe, game_id)
    followups.clock.queue_now(pipe, keys.events(game_id))
    model.queue_read_marks(pipe, game_id)
    store.queue_load(game_id, projected, pipe=pipe)
    replies = pipe.execute()
    seen = followups.seen(replies) if begin else ""
    now, marks_raw, reply = replies[-3:]
    if projected is not None and not reply:
        ctx.projected.drop(game_id)
    parts = store.parse_load(game_id, reply, projected)  # GameNotFound: no game
    if projected is not None and not parts.cached:
        ctx.projected.drop(game_id)  # it holds events the stream no longer has
    marks = model.turn_marks_of(cast(dict[bytes, bytes], marks_raw))
    return seen, followups.clock.reply_ms(now), marks, parts


def _fold_tail(
    ctx: WorkerContext, game_id: str, parts: LoadParts, marks: dict[str, str], writes: Writes
) -> table.Table:
    """Fold ``parts``' events onto its base and queue on ``writes`` what the fold
    changes in the read model; ``marks`` (the turn marks read) become the new ones."""
    store: EventStore = ctx.store
    model = store.readmodel
    state = parts.base
    tail = parts.events
    ledger: dict[str, int] = {}
    after = 0 if state is None else state.version
    for stored in tail:
        state = table.apply(state, stored.event)
        ledger.update(_ledger_entries(stored))
    assert state is not None
    # a turn starts where the fold says it does (Table.turn_since), also when the
    # seat that moved is to act again at once
    begun, idle = table.turn_changes(state, after)
    times = {stored.version: stored.at_ms for stored in tail}
    turn_marks = {turn_field(seat): turn_mark(v, times[v]) for seat, v in begun.items()}
    cleared = {turn_field(seat) for seat in idle} & marks.keys()
    fairness.record(store, game_id, tail, state)
    out = writes.pipe
    model.queue_turn_marks(out, game_id, cleared, turn_marks)
    model.queue_ledger(out, game_id, ledger)
    store.queue_save_snapshot(game_id, state, out)
    store.lag.projected(game_id, parts.version - state.version, out)
    projected_state, at_ms = state, tail[-1].at_ms
    writes.then.append(lambda: ctx.projected.put(projected_state, at_ms))
    for field in cleared:
        marks.pop(field, None)
    marks.update(turn_marks)
    return state


def _starts(marks: dict[str, str]) -> dict[int, int]:
    return ReadModel.starts_of(marks)


def _to_act(state: table.Table | None) -> set[int]:
    if state is None or not state.seated or state.over:
        return set()
    if table.pending(state) is not None:
        return set()
    return set(state.engine.to_act(state.engine_state))


def _ledger_entries(stored: StoredEvent) -> dict[str, int]:
    """Chip movements of a settled pot: each seat's payout minus what it put in."""
    event = stored.event
    payouts = getattr(event, "payouts", None)
    contributions = getattr(event, "contributions", None)
    if event.type != "PotSettled" or payouts is None or contributions is None:
        return {}
    return {
        f"{stored.version}:{seat}": int(paid) - int(put)
        for seat, (paid, put) in enumerate(zip(payouts, contributions, strict=True))
        if paid or put
    }


def ledger_entries(game_id: str) -> dict[str, int]:
    return context().store.readmodel.ledger(game_id)


def turn_starts(game_id: str) -> dict[int, int]:
    """When each seat's current turn began (ms), as the projection recorded it."""
    return context().store.readmodel.turn_starts(game_id)


# -- bots and timeouts -------------------------------------------------------------
def _automatic(state: table.Table, seat: int) -> bool:
    """A seat the workers move for: a bot, or a person marked away."""
    return table.plays_automatically(state, seat)


def _play(game_id: str, seat: int, move: JSON, state: table.Table, *, timed_out: bool) -> bool:
    try:
        context().service.play_as(
            game_id, seat, move, expected_version=state.version, timed_out=timed_out, state=state
        )
    except VersionConflict:
        return False  # someone else moved first; the next round sees it
    except RuleError as exc:
        log.error(
            "automatic move refused",
            extra={
                "game_id": game_id,
                "version": state.version,
                "seat": seat,
                "reason": str(exc),
            },
        )
        raise
    return True


def enforce_timeouts(game_id: str, now_ms: int | None = None) -> int:
    """Move for every human seat whose turn has lasted longer than the table
    allows at ``now_ms`` (Redis's time unless given)."""
    ctx = context()
    state = ctx.service.load(game_id)
    limit = state.turn_timeout_s
    if limit is None:
        return 0
    now_ms = ctx.store.now_ms(game_id) if now_ms is None else now_ms
    starts = turn_starts(game_id)
    moved = 0
    for seat in sorted(_to_act(state)):
        if table.plays_automatically(state, seat) or seat not in starts:
            continue
        if now_ms < turn_deadline_ms(starts[seat], limit):
            continue
        move = state.engine.timeout_move(state.engine_state, seat)
        if _play(game_id, seat, move, state, timed_out=True):
            moved += 1
            state = ctx.service.load(game_id)
    return moved
