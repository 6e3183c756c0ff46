"""The state of a table and how each event changes it.

:func:`apply` folds the table's own events (:mod:`.events`) here and hands
every other one to the game's engine; :func:`fold` folds a run of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..base import JSON, Engine, Event
from ..evolve import evolve
from ..registry import engine_for
from ..shuffle import SEED_UNRECORDED, Shuffler
from .events import (
    COMMON_OPTIONS,
    TABLE_EVENTS,
    GameAbandoned,
    GameCreated,
    SeatAway,
    SeatBack,
    SeatTaken,
    SeedRevealed,
    TurnTimedOut,
)


@dataclass(frozen=True, slots=True)
class Seat:
    seat: int
    name: str
    client_seed: str
    bot: bool
    seed_origin: str = SEED_UNRECORDED
    """Who chose ``client_seed`` (see :class:`SeatTaken`); a state kept before
    origins were recorded reads as ``unrecorded``."""
    creator: bool = False
    """The seat of the table's creator (see :class:`SeatTaken`)."""

    def as_json(self) -> JSON:
        return {
            "seat": self.seat,
            "name": self.name,
            "client_seed": self.client_seed,
            "bot": self.bot,
            "seed_origin": self.seed_origin,
            "creator": self.creator,
        }


@dataclass(frozen=True, slots=True)
class Table:
    """A game at a table: the seats and what every game shares, around the
    engine's own state. ``kind`` names the game played (``"murlan"``...);
    events, views and snapshots call it ``game``."""

    game_id: str
    kind: str
    options: dict[str, Any]
    seat_count: int
    commitment: str
    seats: tuple[Seat | None, ...]
    engine_state: Any
    server_seed: str | None = None
    abandoned: str | None = None
    version: int = 0
    strikes: tuple[int, ...] = ()
    """Per seat: turns timed out in a row since it last acted itself."""
    away: frozenset[int] = frozenset()
    """Seats marked away: the bot plays for them until they act again."""
    turn_since: tuple[int, ...] = ()
    """Per seat: the version from which its current turn has run (0: not its turn).
    A turn runs while the seat is to act and no system step is due; the time of
    that version's event plus the turn limit is when the turn times out."""

    @property
    def engine(self) -> Engine[Any]:
        return engine_for(self.kind)

    @property
    def seated(self) -> bool:
        return all(s is not None for s in self.seats)

    @property
    def status(self) -> str:
        """``seating``, ``playing`` or ``ended``."""
        if self.abandoned is not None or self.engine.is_over(self.engine_state):
            return "ended"
        return "playing" if self.seated else "seating"

    @property
    def over(self) -> bool:
        return self.status == "ended"

    def client_seeds(self) -> tuple[str, ...]:
        return tuple(s.client_seed for s in self.seats if s is not None)

    def shuffler(self, server_seed: bytes) -> Shuffler:
        return Shuffler(server_seed, self.game_id, self.client_seeds())

    @property
    def turn_timeout_s(self) -> float | None:
        """The table's turn limit; ``None``: no limit (asked for, or a table created
        before every table had one)."""
        value = self.options.get("turn_timeout_s")
        return None if value is None else float(value)

    @property
    def bot_delay_s(self) -> float | None:
        """This table's bots' thinking delay (option ``bot_delay_s``); ``None``: the
        server's setting."""
        value = self.options.get("bot_delay_s")
        return None if value is None else float(value)


# -- turns: whose turn runs, and since when ---------------------------------
def acting(state: Table) -> frozenset[int]:
    """The seats whose turn is running: to act, with no system step due first."""
    count = state.seat_count
    return frozenset(s for s in _acting(state, state.engine_state) if 0 <= s < count)


def _acting(state: Table, engine_state: Any) -> tuple[int, ...]:
    """The engine's seats to act in ``state`` were its engine's state ``engine_state``,
    none while seats are free, the game is over or a system step is due."""
    if state.abandoned is not None:
        return ()
    for seat in state.seats:
        if seat is None:
            return ()
    engine = engine_for(state.kind)
    if engine.is_over(engine_state) or engine.pending(engine_state) is not None:
        return ()
    return tuple(engine.to_act(engine_state))


def _since(
    state: Table,
    engine_state: Any,
    version: int,
    event: Event | None,
    before: tuple[int, ...] | None = None,
) -> tuple[int, ...]:
    """:attr:`Table.turn_since` after ``event`` (folded into ``engine_state``, at
    ``version``): a seat that has come to act starts its turn here, one no longer to act
    has none, and one still to act keeps its start, unless the event was its own (it
    moved and acts again, say leading the next trick): then its new turn starts here.
    ``before`` is the turn starts before the event (``state``'s own by default)."""
    before = state.turn_since if before is None else before
    return _starts(_acting(state, engine_state), before, state.seat_count, version, event)


def _starts(
    now: tuple[int, ...], before: tuple[int, ...], count: int, version: int, event: Event | None
) -> tuple[int, ...]:
    """The turn starts after ``event`` at ``version`` when ``now`` are the seats to
    act and ``before`` the starts before it (see :func:`_since`)."""
    if not now and before and not any(before):
        return before
    mover = getattr(event, "seat", None)
    since = [0] * count
    for seat in now:
        if 0 <= seat < count:
            began = before[seat] if before else 0
            since[seat] = began if began and seat != mover else version
    return tuple(since)


def _ready(state: Table) -> bool:
    """Whether turns may run at all: every seat taken and the table not abandoned
    (only table events change that)."""
    return state.abandoned is None and all(seat is not None for seat in state.seats)


def _turns(state: Table) -> Table:
    """``state`` with :attr:`Table.turn_since` brought up to its version (after a table
    event that may start or end turns: the last seat taken, the table abandoned)."""
    return evolve(state, turn_since=_since(state, state.engine_state, state.version, None))


# -- the fold ----------------------------------------------------------------
def apply(state: Table | None, event: Event) -> Table:
    if isinstance(event, GameCreated):
        if state is not None:
            raise ValueError("GameCreated must be the first event")
        engine = engine_for(event.game)
        engine_options = {k: v for k, v in event.options.items() if k not in COMMON_OPTIONS}
        return Table(
            game_id=event.game_id,
            kind=event.game,
            options=dict(event.options),
            seat_count=event.seats,
            commitment=event.commitment,
            seats=tuple(None for _ in range(event.seats)),
            engine_state=engine.initial(engine_options, event.seats),
            version=1,
            strikes=(0,) * event.seats,
            turn_since=(0,) * event.seats,
        )
    if state is None:
        raise ValueError(f"{event.type} before GameCreated")
    version = state.version + 1
    if isinstance(event, SeatTaken):
        seats = list(state.seats)
        seats[event.seat] = Seat(
            event.seat, event.name, event.client_seed, event.bot, event.seed_origin, event.creator
        )
        return _turns(evolve(state, seats=tuple(seats), version=version))
    if isinstance(event, SeedRevealed):
        return evolve(state, server_seed=event.server_seed, version=version)
    if isinstance(event, GameAbandoned):
        return _turns(evolve(state, abandoned=event.reason, version=version))
    if isinstance(event, TurnTimedOut):
        strikes = list(state.strikes or (0,) * state.seat_count)
        strikes[event.seat] += 1
        return evolve(state, strikes=tuple(strikes), version=version)
    if isinstance(event, SeatAway):
        return evolve(state, away=state.away | {event.seat}, version=version)
    if isinstance(event, SeatBack):
        strikes = list(state.strikes or (0,) * state.seat_count)
        strikes[event.seat] = 0
        return evolve(
            state, strikes=tuple(strikes), away=state.away - {event.seat}, version=version
        )
    engine_state = state.engine.apply(state.engine_state, event)
    return evolve(
        state,
        engine_state=engine_state,
        version=version,
        turn_since=_since(state, engine_state, version, event),
    )


def fold(events: Sequence[Event], state: Table | None = None) -> Table:
    """``apply`` over ``events``. A run of engine events goes to the engine
    state alone and the table state is made once at its end: the same state,
    since the table's own fields only change with table events (so whether
    turns may run, :func:`_ready`, is known for the whole run)."""
    engine: Engine[Any] | None = None
    engine_state: Any = None
    since: tuple[int, ...] = ()
    ready = False
    run = 0  # engine events applied since ``state`` was made
    for event in events:
        if engine is not None and state is not None and not isinstance(event, TABLE_EVENTS):
            engine_state = engine.apply(engine_state, event)
            run += 1
            now: tuple[int, ...] = ()
            if ready and not engine.is_over(engine_state) and engine.pending(engine_state) is None:
                now = tuple(engine.to_act(engine_state))
            since = _starts(now, since, state.seat_count, state.version + run, event)
            continue
        if run and state is not None:
            state = evolve(
                state,
                engine_state=engine_state,
                version=state.version + run,
                turn_since=since,
            )
            run = 0
        state = apply(state, event)
        engine, engine_state, since = state.engine, state.engine_state, state.turn_since
        ready = _ready(state)
    if state is None:
        raise ValueError("no events")
    if run:
        state = evolve(
            state, engine_state=engine_state, version=state.version + run, turn_since=since
        )
    return state
