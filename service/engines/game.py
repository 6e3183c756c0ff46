"""A game at a table: the part every game shares, around one engine.

The table's own events (created, seat taken, seed revealed, a turn timed
out) are folded here; everything else is handed to the game's engine. Like
the engines, this module is pure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Final

from .base import JSON, Engine, Event, Move, OptionError, RuleError
from .registry import engine_for
from .shuffle import ALGORITHM, Shuffler, validate_client_seed

NAME_MAX = 40
COMMON_OPTIONS = ("turn_timeout_s",)
DEFAULT_TURN_TIMEOUT_S: Final = 60
"""The turn limit of a table created without ``turn_timeout_s`` (or with ``null``)."""
NO_TURN_LIMIT: Final = (0, "none")
"""``turn_timeout_s`` values that ask for no turn limit at all (stored as ``null``)."""
AWAY_AFTER_TIMEOUTS: Final = 2
"""Turns in a row a seat may time out before it is marked away."""


@dataclass(frozen=True, slots=True)
class GameCreated(Event):
    type: ClassVar[str] = "GameCreated"
    game_id: str
    game: str
    options: dict[str, Any]
    seats: int
    commitment: str
    algorithm: str = ALGORITHM


@dataclass(frozen=True, slots=True)
class SeatTaken(Event):
    type: ClassVar[str] = "SeatTaken"
    seat: int
    name: str
    client_seed: str
    bot: bool = False


@dataclass(frozen=True, slots=True)
class TurnTimedOut(Event):
    """The seat did not act in time; the events after it are the move made for it."""

    type: ClassVar[str] = "TurnTimedOut"
    seat: int
    after_s: float


@dataclass(frozen=True, slots=True)
class SeedRevealed(Event):
    type: ClassVar[str] = "SeedRevealed"
    server_seed: str


@dataclass(frozen=True, slots=True)
class GameAbandoned(Event):
    """The table ended before its game did: ``standings`` holds the scores (or Azi's
    stacks) as they stood."""

    type: ClassVar[str] = "GameAbandoned"
    reason: str
    standings: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class SeatAway(Event):
    """The seat timed out ``timeouts`` turns in a row: until it acts again, the bot plays
    for it at once."""

    type: ClassVar[str] = "SeatAway"
    seat: int
    timeouts: int


@dataclass(frozen=True, slots=True)
class SeatBack(Event):
    """The seat acted itself again after timing out: its count of missed turns starts
    over, and if it was away it plays for itself again."""

    type: ClassVar[str] = "SeatBack"
    seat: int


TABLE_EVENTS: tuple[type[Event], ...] = (
    GameCreated,
    SeatTaken,
    TurnTimedOut,
    SeedRevealed,
    GameAbandoned,
    SeatAway,
    SeatBack,
)
BOOKKEEPING_EVENTS: tuple[type[Event], ...] = (TurnTimedOut, GameAbandoned, SeatAway, SeatBack)
"""Table events no move and no system step causes: a verifier folds them as they are."""


@dataclass(frozen=True, slots=True)
class Seat:
    seat: int
    name: str
    client_seed: str
    bot: bool

    def as_json(self) -> JSON:
        return {
            "seat": self.seat,
            "name": self.name,
            "client_seed": self.client_seed,
            "bot": self.bot,
        }


@dataclass(frozen=True, slots=True)
class Game:
    game_id: str
    game: str
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
        return engine_for(self.game)

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


def plays_automatically(state: Game, seat: int) -> bool:
    """True when nobody chooses this seat's moves: a bot, or a seat marked away."""
    info = state.seats[seat] if 0 <= seat < len(state.seats) else None
    return info is not None and (info.bot or seat in state.away)


def turn_changes(state: Game, after: int) -> tuple[dict[int, int], tuple[int, ...]]:
    """How the seats' turns stand in ``state`` against its version ``after``
    (from :attr:`Game.turn_since`): seat -> the version its turn began at, for
    the turns that began since; and the seats with no turn now."""
    begun = {seat: since for seat, since in enumerate(state.turn_since) if since > after}
    idle = tuple(seat for seat, since in enumerate(state.turn_since) if since == 0)
    return begun, idle


def is_away(state: Game, seat: int) -> bool:
    return seat in state.away


def acting(state: Game) -> frozenset[int]:
    """The seats whose turn is running: to act, with no system step due first."""
    count = state.seat_count
    return frozenset(s for s in _acting(state, state.engine_state) if 0 <= s < count)


def _acting(state: Game, engine_state: Any) -> tuple[int, ...]:
    """The engine's seats to act in ``state`` were its engine's state ``engine_state``,
    none while seats are free, the game is over or a system step is due."""
    if state.abandoned is not None:
        return ()
    for seat in state.seats:
        if seat is None:
            return ()
    engine = engine_for(state.game)
    if engine.is_over(engine_state) or engine.pending(engine_state) is not None:
        return ()
    return tuple(engine.to_act(engine_state))


def _since(
    state: Game,
    engine_state: Any,
    version: int,
    event: Event | None,
    before: tuple[int, ...] | None = None,
) -> tuple[int, ...]:
    """:attr:`Game.turn_since` after ``event`` (folded into ``engine_state``, at
    ``version``): a seat that has come to act starts its turn here, one no longer to act
    has none, and one still to act keeps its start, unless the event was its own (it
    moved and acts again, say leading the next trick): then its new turn starts here.
    ``before`` is the turn starts before the event (``state``'s own by default)."""
    now = _acting(state, engine_state)
    count = state.seat_count
    if before is None:
        before = state.turn_since
    if not now and before and not any(before):
        return before
    mover = getattr(event, "seat", None)
    since = [0] * count
    for seat in now:
        if 0 <= seat < count:
            began = before[seat] if before else 0
            since[seat] = began if began and seat != mover else version
    return tuple(since)


def _turns(state: Game) -> Game:
    """``state`` with :attr:`Game.turn_since` brought up to its version (after a table
    event that may start or end turns: the last seat taken, the table abandoned)."""
    return replace(state, turn_since=_since(state, state.engine_state, state.version, None))


class TableError(RuleError):
    """A request the table itself refuses (seat taken, game over…)."""


# -- commands ---------------------------------------------------------------
def parse_options(game: str, raw: Mapping[str, Any] | None) -> JSON:
    """Engine options plus the options every game has."""
    raw = dict(raw or {})
    timeout = raw.pop("turn_timeout_s", None)
    if timeout is None:
        timeout = DEFAULT_TURN_TIMEOUT_S
    elif not isinstance(timeout, bool) and timeout in NO_TURN_LIMIT:
        timeout = None
    else:
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
            raise OptionError(
                "turn_timeout_s",
                'turn_timeout_s must be a number of seconds, 0 or "none" (no limit), or null',
            )
        if not 1 <= timeout <= 86_400:
            raise OptionError(
                "turn_timeout_s",
                f'turn_timeout_s {timeout} is out of range 1..86400 (0 or "none": no limit)',
            )
    options = engine_for(game).parse_options(raw)
    options["turn_timeout_s"] = timeout
    return options


def create(
    game_id: str, game: str, options: Mapping[str, Any] | None, seats: int | None, commitment: str
) -> list[Event]:
    engine = engine_for(game)
    if seats is None:
        if engine.min_seats != engine.max_seats:
            raise OptionError(
                "seats", f"{game} needs seats ({engine.min_seats}-{engine.max_seats})"
            )
        seats = engine.min_seats
    if (
        isinstance(seats, bool)
        or not isinstance(seats, int)
        or not engine.min_seats <= seats <= engine.max_seats
    ):
        span = (
            str(engine.min_seats)
            if engine.min_seats == engine.max_seats
            else f"{engine.min_seats}-{engine.max_seats}"
        )
        raise OptionError("seats", f"{game} is played by {span} players, not {seats!r}")
    return [GameCreated(game_id, game, parse_options(game, options), seats, commitment)]


def take_seat(state: Game, name: str, client_seed: str, bot: bool = False) -> list[Event]:
    if state.over:
        raise TableError("game_over", f"game {state.game_id} has ended")
    free = [i for i, s in enumerate(state.seats) if s is None]
    if not free:
        raise TableError(
            "table_full", f"all {state.seat_count} seats of game {state.game_id} are taken"
        )
    name = name.strip() if isinstance(name, str) else ""
    if not 1 <= len(name) <= NAME_MAX or not name.isprintable():
        raise TableError("bad_name", f"name must be 1-{NAME_MAX} printable characters")
    validate_client_seed(client_seed)
    return [SeatTaken(free[0], name, client_seed, bool(bot))]


def decide(state: Game, seat: int, move: Move) -> list[Event]:
    if state.over:
        raise TableError("game_over", f"game {state.game_id} has ended")
    if not state.seated:
        raise TableError("not_started", "the game starts when every seat is taken")
    if not 0 <= seat < state.seat_count:
        raise TableError("no_such_seat", f"no seat {seat}")
    return state.engine.decide(state.engine_state, seat, move)


def time_out(state: Game, seat: int, move: Move) -> list[Event]:
    """The move made for a seat whose turn lasted too long: :class:`TurnTimedOut`,
    :class:`SeatAway` when it is the seat's ``AWAY_AFTER_TIMEOUTS``-th in a row,
    then the move's events."""
    events = decide(state, seat, move)
    timed_out: list[Event] = [TurnTimedOut(seat, state.turn_timeout_s or 0.0)]
    missed = _strikes(state, seat) + 1
    if missed >= AWAY_AFTER_TIMEOUTS and seat not in state.away:
        timed_out.append(SeatAway(seat, missed))
    return [*timed_out, *events]


def come_back(state: Game, seat: int) -> list[Event]:
    """:class:`SeatBack` when the seat acts itself after timing out or being away."""
    if state.over or not 0 <= seat < state.seat_count:
        return []
    if seat in state.away or _strikes(state, seat) > 0:
        return [SeatBack(seat)]
    return []


def abandon(state: Game, reason: str) -> list[Event]:
    """End a table that is not over, stating its scores (or stacks) as they stand."""
    if state.over:
        return []
    standings: dict[str, Any] | None = None
    if state.seated:
        public = state.engine.view(state.engine_state, None)
        standings = {k: public[k] for k in ("scores", "stacks") if k in public} or None
    return [GameAbandoned(reason, standings)]


def _strikes(state: Game, seat: int) -> int:
    return state.strikes[seat] if seat < len(state.strikes) else 0


def pending(state: Game) -> str | None:
    """The system step due: an engine step, ``reveal`` once the game is over
    and the seed still secret, or ``None``."""
    if not state.seated and state.abandoned is None:
        return None
    if state.over:
        return "reveal" if state.server_seed is None else None
    return state.engine.pending(state.engine_state)


def advance(state: Game, server_seed: bytes) -> list[Event]:
    """Events of the due step. ``reveal`` needs the seed itself."""
    step = pending(state)
    if step is None:
        return []
    if step == "reveal":
        return [SeedRevealed(server_seed.hex())]
    return state.engine.advance(state.engine_state, state.shuffler(server_seed))


# -- the fold ----------------------------------------------------------------
def apply(state: Game | None, event: Event) -> Game:
    if isinstance(event, GameCreated):
        if state is not None:
            raise ValueError("GameCreated must be the first event")
        engine = engine_for(event.game)
        engine_options = {k: v for k, v in event.options.items() if k not in COMMON_OPTIONS}
        return Game(
            game_id=event.game_id,
            game=event.game,
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
        seats[event.seat] = Seat(event.seat, event.name, event.client_seed, event.bot)
        return _turns(replace(state, seats=tuple(seats), version=version))
    if isinstance(event, SeedRevealed):
        return replace(state, server_seed=event.server_seed, version=version)
    if isinstance(event, GameAbandoned):
        return _turns(replace(state, abandoned=event.reason, version=version))
    if isinstance(event, TurnTimedOut):
        strikes = list(state.strikes or (0,) * state.seat_count)
        strikes[event.seat] += 1
        return replace(state, strikes=tuple(strikes), version=version)
    if isinstance(event, SeatAway):
        return replace(state, away=state.away | {event.seat}, version=version)
    if isinstance(event, SeatBack):
        strikes = list(state.strikes or (0,) * state.seat_count)
        strikes[event.seat] = 0
        return replace(
            state, strikes=tuple(strikes), away=state.away - {event.seat}, version=version
        )
    engine_state = state.engine.apply(state.engine_state, event)
    return replace(
        state,
        engine_state=engine_state,
        version=version,
        turn_since=_since(state, engine_state, version, event),
    )


def fold(events: Sequence[Event], state: Game | None = None) -> Game:
    """``apply`` over ``events``. A run of engine events goes to the engine
    state alone and the table state is made once at its end: the same state,
    since the table's own fields only change with table events."""
    engine: Engine[Any] | None = None
    engine_state: Any = None
    since: tuple[int, ...] = ()
    run = 0  # engine events applied since ``state`` was made
    for event in events:
        if engine is not None and state is not None and not isinstance(event, TABLE_EVENTS):
            engine_state = engine.apply(engine_state, event)
            run += 1
            since = _since(state, engine_state, state.version + run, event, since)
            continue
        if run and state is not None:
            state = replace(
                state,
                engine_state=engine_state,
                version=state.version + run,
                turn_since=since,
            )
            run = 0
        state = apply(state, event)
        engine, engine_state, since = state.engine, state.engine_state, state.turn_since
    if state is None:
        raise ValueError("no events")
    if run:
        state = replace(
            state, engine_state=engine_state, version=state.version + run, turn_since=since
        )
    return state


def event_types(game: str) -> tuple[type[Event], ...]:
    return TABLE_EVENTS + engine_for(game).event_types


def redact(state: Game, event: Event, viewer: int | None) -> Event:
    """``event`` as ``viewer`` may see it; everything is public once the game ended."""
    if state.over and state.server_seed is not None:
        return event
    return event.redact(viewer)


def view(state: Game, viewer: int | None) -> JSON:
    """The whole view of a game for a seat (or the public)."""
    engine = state.engine
    to_act = list(engine.to_act(state.engine_state)) if state.seated and not state.over else []
    out: JSON = {
        "game_id": state.game_id,
        "game": state.game,
        "status": state.status,
        "version": state.version,
        "options": state.options,
        "commitment": state.commitment,
        "server_seed": state.server_seed,
        "seats": [
            s.as_json()
            if s is not None
            else {"seat": i, "name": None, "client_seed": None, "bot": False}
            for i, s in enumerate(state.seats)
        ],
        "to_act": to_act,
        "away": sorted(state.away),
        "abandoned": state.abandoned,
        "table": engine.view(state.engine_state, viewer),
        "result": engine.result(state.engine_state),
    }
    if viewer is not None:
        out["seat"] = viewer
        out["hand"] = out["table"].get("hand", [])
        out["legal_moves"] = (
            engine.legal_moves(state.engine_state, viewer) if viewer in to_act else []
        )
        out["legal_moves_complete"] = engine.legal_moves_complete
    return out
