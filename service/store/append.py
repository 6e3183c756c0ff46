"""One append, as one value: what to write, on what condition, and what goes with it.

An :class:`Append` holds the events (or, for imports, entries already in
stored form), the version they were decided on, the idempotency record to
keep, the entry the caller's state ends with, the projection and the
drains' dispatch. :meth:`Append.script` turns it into the ``KEYS`` and
``ARGV`` of :data:`service.store.lua.APPEND`, every argument by name:
:data:`ARGS` lists them in the script's order, and a test holds that list
against the script's own header, so the two cannot drift.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from schemas import entries as stored_form
from schemas.codec import encode_state, state_schema_id
from service.engines.base import Event
from service.engines.table import GameCreated, Table

from . import keys

ARGS: Final = (
    "expected_version",
    "record_ttl_ms",
    "keep_response",
    "response",
    "marker_ttl_ms",
    "game_id",
    "count_lag",
    "drain_slots",
    "slot_lease_ms",
    "slot_token",
    "last_entry",
    "state",
    "schema_id",
    "game",
    "begun",
    "idle",
    "to_act",
    "limit_ms",
    "hook_notices",
    "hook_due",
)
"""The append script's named arguments, ``ARGV[1..20]``; four per event follow:
an event's in the second stored form (:mod:`schemas.entries`) is ``(type,
'', its e field, '')``, an entry in the first form ``(type, schema_version,
data, at_ms)``."""


@dataclass(frozen=True, slots=True)
class Dispatch:
    """The drains' list and slots (:class:`service.store.drains.Drains`), for an
    append that sets its game's marker anew to put the game on the list and
    take a free slot in the same script, as ``DRAIN_DISPATCH`` would.

    Only where the queue shares the store's standalone Redis."""

    pending: str
    slots: tuple[str, ...]
    lease_ms: int
    token: str


@dataclass(frozen=True, slots=True)
class Projection:
    """What an append needs to project itself in its own script, when nothing
    but the fold is left to do after it (see :meth:`EventStore.append`): the
    state after its events, and the read model's changes a follow-up would
    make (see ``workers.jobs.project_round``).

    Only on a standalone Redis (the timers index is not in a game's slot)."""

    state: Table
    """The state after the events appended."""
    begun: Mapping[int, int]
    """Seat -> the version at which its turn began, for the turns that began in
    the events appended (their :data:`keys.TURN_FIELD` marks are set)."""
    idle: tuple[int, ...]
    """The seats with no turn now (their marks are cleared)."""
    to_act: tuple[int, ...]
    """The seats to act, each a person whose turn times out (none automatic)."""
    limit_ms: int | None
    """The table's turn limit (``None``: turns never time out)."""
    due_key: str
    """The timers index's sorted set that holds the game's entry
    (:meth:`service.store.followups.Followups.due_key`): set to the first of the
    ``to_act`` seats' deadlines, or removed when none is due."""


@dataclass(frozen=True, slots=True)
class Hooks:
    """The webhook events an append decides (:mod:`service.webhooks.notices`):
    the script queues a delivery for every subscription of the game that
    wants one, in the same step as the events (:mod:`service.store.hooks`)."""

    notices: tuple[str, ...]
    """Each ``"event:seat:limit_ms"`` (seat ``*``: every seat; limit ``''``: none)."""


@dataclass(frozen=True, slots=True)
class Record:
    """The idempotency record an append keeps: its key and, if asked, the answer."""

    key: str
    response: str | None = None


StoredEntry = tuple[str, int, bytes, int]
"""An entry in stored form: ``(type, schema_version, data, at_ms)``."""


@dataclass(frozen=True, slots=True)
class Settings:
    """The store's own part of every append."""

    record_ttl_ms: int
    marker_ttl_ms: int
    counts_lag: bool
    projects: bool
    schedules_hooks: bool = False
    """Whether the script also puts queued deliveries in the webhooks' due set
    (a standalone Redis: that set is not in a game's slot)."""


@dataclass(frozen=True, slots=True)
class Append:
    """Append ``events`` (or ``entries``) to ``game_id`` after ``expected_version``."""

    game_id: str
    expected_version: int
    events: Sequence[Event] = ()
    entries: Sequence[StoredEntry] = ()
    """Entries in stored form, keeping their time (imports), instead of ``events``."""
    record: Record | None = None
    last_entry: str | None = None
    """The id of the entry the caller's (cached) state ends with: checked."""
    projection: Projection | None = None
    dispatch: Dispatch | None = None
    hooks: Hooks | None = None

    def check(self) -> None:
        """Refuse an append that could never be right (``ValueError``)."""
        if not self.events and not self.entries:
            raise ValueError("append needs at least one event")
        if self.expected_version < 0:
            raise ValueError(f"expected_version {self.expected_version} is negative")
        if not self.events:
            return
        first = self.events[0]
        if (self.expected_version == 0) != isinstance(first, GameCreated) or any(
            isinstance(e, GameCreated) for e in self.events[1:]
        ):
            raise ValueError("a game's stream starts with its one GameCreated event")
        if isinstance(first, GameCreated) and first.game_id != self.game_id:
            raise ValueError(f"GameCreated of game {first.game_id!r} appended to {self.game_id!r}")
        if self.dispatch is not None and not self.dispatch.slots:
            raise ValueError("a dispatch needs at least one drain slot")

    def counted(self, settings: Settings) -> bool:
        """Whether the script counts the events as projection lag (not imports:
        their import projects them)."""
        return settings.counts_lag and not self.entries

    def script(self, settings: Settings) -> tuple[list[str], list[Any]]:
        """The script's ``KEYS`` and ``ARGV``."""
        self.check()
        named: dict[str, Any] = {
            "expected_version": self.expected_version,
            "record_ttl_ms": settings.record_ttl_ms,
            "keep_response": "0" if self.record is None or self.record.response is None else "1",
            "response": (self.record.response or "") if self.record is not None else "",
            "marker_ttl_ms": settings.marker_ttl_ms,
            "game_id": self.game_id,
            "count_lag": "1" if self.counted(settings) else "0",
            "drain_slots": 0 if self.dispatch is None else len(self.dispatch.slots),
            "slot_lease_ms": 0 if self.dispatch is None else self.dispatch.lease_ms,
            "slot_token": "" if self.dispatch is None else self.dispatch.token,
            "last_entry": self.last_entry or "",
            **self._projected(settings),
            "hook_notices": " ".join(self.hooks.notices) if self.hooks else "",
            "hook_due": "1" if settings.schedules_hooks else "0",
        }
        args: list[Any] = [named[name] for name in ARGS]
        for event in self.events:  # the second stored form (one field), at the server's time
            args.extend((event.type, "", stored_form.pack(event), ""))
        for entry in self.entries:
            args.extend(entry)
        return self._keys(settings), args

    def _keys(self, settings: Settings) -> list[str]:
        """In the script's order: the stream, the marker, then each only when
        asked for: the record, the snapshot + meta + timers, the lag keys, the
        drains' list and slots, the game's hook keys (+ the due set)."""
        out = [keys.events(self.game_id), keys.followup(self.game_id)]
        if self.record is not None:
            out.append(keys.idem(self.game_id, self.record.key))
        if self.projection is not None:
            out += [keys.snapshot(self.game_id), keys.meta(self.game_id), self.projection.due_key]
        if self.counted(settings):
            out += [keys.LAG, keys.LAG_TOTAL]
        if self.dispatch is not None:
            out += [self.dispatch.pending, *self.dispatch.slots]
        if self.hooks is not None and self.hooks.notices:
            gid = self.game_id
            out += [keys.hooks(gid), keys.deliveries(gid), keys.delivery_log(gid)]
            if settings.schedules_hooks:
                out.append(keys.HOOKS_DUE)
        return out

    def _projected(self, settings: Settings) -> dict[str, Any]:
        """The projection's arguments (all ``''`` without one)."""
        projection = self.projection
        names = ("state", "schema_id", "game", "begun", "idle", "to_act", "limit_ms")
        if projection is None:
            return dict.fromkeys(names, "")
        state = projection.state
        if not settings.projects:
            raise ValueError("an append projects itself on a standalone Redis only")
        if state.game_id != self.game_id or state.version != self.expected_version + len(
            self.events
        ):
            raise ValueError(
                f"projection of game {state.game_id!r} at version {state.version} given "
                f"for {len(self.events)} events of {self.game_id!r} after {self.expected_version}"
            )
        begun = " ".join(
            f"{seat}:{since}"
            for seat, since in sorted(projection.begun.items())
            if since > self.expected_version
        )
        return {
            "state": encode_state(state),
            "schema_id": state_schema_id(state.kind),
            "game": state.kind,
            "begun": begun,
            "idle": " ".join(map(str, projection.idle)),
            "to_act": " ".join(map(str, projection.to_act)),
            "limit_ms": "" if projection.limit_ms is None else projection.limit_ms,
        }
