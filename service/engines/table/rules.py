"""The table's rules: its options, the commands that check a request against
the state and return the events it causes, the system step due, and who plays
a seat's turn.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ..base import JSON, Event, Move, OptionError, RuleError
from ..registry import engine_for
from ..shuffle import (
    SEED_DERIVED,
    SEED_PLAYER,
    SeedError,
    derived_client_seed,
    validate_client_seed,
)
from .events import (
    GameAbandoned,
    GameCreated,
    SeatAway,
    SeatBack,
    SeatTaken,
    SeedRevealed,
    TurnTimedOut,
)
from .state import Table

NAME_MAX = 40
DEFAULT_TURN_TIMEOUT_S: Final = 60
"""The turn limit of a table created without ``turn_timeout_s`` (or with ``null``)."""
NO_TURN_LIMIT: Final = (0, "none")
"""``turn_timeout_s`` values that ask for no turn limit at all (stored as ``null``)."""
AWAY_AFTER_TIMEOUTS: Final = 2
"""Turns in a row a seat may time out before it is marked away."""


# -- turns ------------------------------------------------------------------
def plays_automatically(state: Table, seat: int) -> bool:
    """True when nobody chooses this seat's moves: a bot, or a seat marked away."""
    info = state.seats[seat] if 0 <= seat < len(state.seats) else None
    return info is not None and (info.bot or seat in state.away)


def turn_changes(state: Table, after: int) -> tuple[dict[int, int], tuple[int, ...]]:
    """How the seats' turns stand in ``state`` against its version ``after``
    (from :attr:`Table.turn_since`): seat -> the version its turn began at, for
    the turns that began since; and the seats with no turn now."""
    begun = {seat: since for seat, since in enumerate(state.turn_since) if since > after}
    idle = tuple(seat for seat, since in enumerate(state.turn_since) if since == 0)
    return begun, idle


def is_away(state: Table, seat: int) -> bool:
    return seat in state.away


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
                "option-not-whole",
            )
        if not 1 <= timeout <= 86_400:
            raise OptionError(
                "turn_timeout_s",
                f'turn_timeout_s {timeout} is out of range 1..86400 (0 or "none": no limit)',
                "option-out-of-range",
                value=timeout,
                min=1,
                max=86_400,
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
                "seats",
                f"{game} needs seats ({engine.min_seats}-{engine.max_seats})",
                "seats-out-of-range",
                min=engine.min_seats,
                max=engine.max_seats,
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
        raise OptionError(
            "seats",
            f"{game} is played by {span} players, not {seats!r}",
            "seats-out-of-range",
            min=engine.min_seats,
            max=engine.max_seats,
        )
    return [GameCreated(game_id, game, parse_options(game, options), seats, commitment)]


def take_seat(
    state: Table,
    name: str,
    client_seed: str | None,
    bot: bool = False,
    server_seed: bytes | None = None,
) -> list[Event]:
    """The next free seat. A seat that brings no ``client_seed``, and every bot,
    gets the one derived from ``server_seed`` for its index
    (:func:`derived_client_seed`): the server's part is then fixed by its
    commitment, whoever sits down first. A bot brings none."""
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
    if bot and client_seed is not None:
        raise SeedError("a bot's client_seed is derived from the committed server seed: send none")
    if client_seed is None:
        if server_seed is None:
            raise SeedError("a seat without a client_seed needs the server seed to derive one")
        derived = derived_client_seed(server_seed, free[0])
        return [SeatTaken(free[0], name, derived, bool(bot), SEED_DERIVED)]
    validate_client_seed(client_seed)
    return [SeatTaken(free[0], name, client_seed, bool(bot), SEED_PLAYER)]


def decide(state: Table, seat: int, move: Move) -> list[Event]:
    if state.over:
        raise TableError("game_over", f"game {state.game_id} has ended")
    if not state.seated:
        raise TableError("not_started", "the game starts when every seat is taken")
    if not 0 <= seat < state.seat_count:
        raise TableError("no_such_seat", f"no seat {seat}")
    return state.engine.decide(state.engine_state, seat, move)


def time_out(state: Table, seat: int, move: Move) -> list[Event]:
    """The move made for a seat whose turn lasted too long: :class:`TurnTimedOut`,
    :class:`SeatAway` when it is the seat's ``AWAY_AFTER_TIMEOUTS``-th in a row,
    then the move's events."""
    events = decide(state, seat, move)
    timed_out: list[Event] = [TurnTimedOut(seat, state.turn_timeout_s or 0.0)]
    missed = _strikes(state, seat) + 1
    if missed >= AWAY_AFTER_TIMEOUTS and seat not in state.away:
        timed_out.append(SeatAway(seat, missed))
    return [*timed_out, *events]


def come_back(state: Table, seat: int) -> list[Event]:
    """:class:`SeatBack` when the seat acts itself after timing out or being away."""
    if state.over or not 0 <= seat < state.seat_count:
        return []
    if seat in state.away or _strikes(state, seat) > 0:
        return [SeatBack(seat)]
    return []


def abandon(state: Table, reason: str) -> list[Event]:
    """End a table that is not over, stating its scores (or stacks) as they stand."""
    if state.over:
        return []
    standings: dict[str, Any] | None = None
    if state.seated:
        public = state.engine.view(state.engine_state, None)
        standings = {k: public[k] for k in ("scores", "stacks") if k in public} or None
    return [GameAbandoned(reason, standings)]


def _strikes(state: Table, seat: int) -> int:
    return state.strikes[seat] if seat < len(state.strikes) else 0


def pending(state: Table) -> str | None:
    """The system step due: an engine step, ``reveal`` once the game is over
    and the seed still secret, or ``None``."""
    if not state.seated and state.abandoned is None:
        return None
    if state.over:
        return "reveal" if state.server_seed is None else None
    return state.engine.pending(state.engine_state)


def advance(state: Table, server_seed: bytes) -> list[Event]:
    """Events of the due step. ``reveal`` needs the seed itself."""
    step = pending(state)
    if step is None:
        return []
    if step == "reveal":
        return [SeedRevealed(server_seed.hex())]
    return state.engine.advance(state.engine_state, state.shuffler(server_seed))
