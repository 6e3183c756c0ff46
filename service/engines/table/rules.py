"""The table's rules: its options, the commands that check a request against
the state and return the events it causes, the system step due, and who plays
a seat's turn.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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
    COMMON_OPTIONS,
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
BOT_DELAY_MAX_S: Final = 10
"""The longest thinking delay a table may ask of its bots (``bot_delay_s``)."""
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
    """Engine options plus the options every game has (:data:`COMMON_OPTIONS`)."""
    raw = dict(raw or {})
    timeout = _turn_timeout(raw.pop("turn_timeout_s", None))
    delay = _bot_delay(raw.pop("bot_delay_s", None))
    engine = engine_for(game)
    try:
        options = engine.parse_options(raw)
    except OptionError as exc:
        if exc.code != "option-unknown":
            raise
        known = sorted({*engine.parse_options({}), *COMMON_OPTIONS})
        raise OptionError(
            exc.option,
            f"unknown option {exc.option!r} for {game} (known: {', '.join(known)})",
            "option-unknown",
            known=known,
        ) from None
    options["turn_timeout_s"] = timeout
    if delay is not None:
        options["bot_delay_s"] = delay
    return options


def _turn_timeout(timeout: Any) -> float | None:
    if timeout is None:
        return DEFAULT_TURN_TIMEOUT_S
    if not isinstance(timeout, bool) and timeout in NO_TURN_LIMIT:
        return None
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
    return timeout


def _bot_delay(delay: Any) -> float | None:
    """``bot_delay_s``: this table's bots' thinking delay, 0-:data:`BOT_DELAY_MAX_S`
    seconds; ``None`` (absent or null) leaves it to the server's setting."""
    if delay is None:
        return None
    if isinstance(delay, bool) or not isinstance(delay, (int, float)) or delay != delay:
        raise OptionError(
            "bot_delay_s", "bot_delay_s must be a number of seconds", "option-not-whole"
        )
    if not 0 <= delay <= BOT_DELAY_MAX_S:
        raise OptionError(
            "bot_delay_s",
            f"bot_delay_s {delay} is out of range 0..{BOT_DELAY_MAX_S}",
            "option-out-of-range",
            value=delay,
            min=0,
            max=BOT_DELAY_MAX_S,
        )
    return delay


def create(
    game_id: str,
    game: str,
    options: Mapping[str, Any] | None,
    seats: int | None,
    commitment: str,
    bots: Sequence[tuple[int, str]] = (),
    server_seed: bytes | None = None,
) -> list[Event]:
    """A new table's events: its creation, then a house bot in each seat of
    ``bots`` (seat, name), its client seed derived from ``server_seed``."""
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
    created = GameCreated(game_id, game, parse_options(game, options), seats, commitment)
    return [created, *_bots_seated(bots, seats, server_seed)]


def _bots_seated(
    bots: Sequence[tuple[int, str]], seats: int, server_seed: bytes | None
) -> list[Event]:
    """The ``SeatTaken`` of each bot seated at creation; a seat out of range or
    named twice, a bad name, or every seat a bot, is an error naming ``bots``."""
    if not bots:
        return []
    if server_seed is None:
        raise SeedError("bots seated at creation need the server seed to derive their seeds")
    taken: list[Event] = []
    chosen: set[int] = set()
    for seat, name in bots:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < seats:
            raise OptionError(
                "bots",
                f"a bot's seat {seat!r} is out of range 0..{seats - 1}",
                "option-out-of-range",
                value=seat,
                min=0,
                max=seats - 1,
            )
        if seat in chosen:
            raise OptionError("bots", f"seat {seat} is named twice", "option-invalid", value=seat)
        name = name.strip() if isinstance(name, str) else ""
        if not 1 <= len(name) <= NAME_MAX or not name.isprintable():
            raise OptionError(
                "bots", f"a bot's name must be 1-{NAME_MAX} printable characters", "option-invalid"
            )
        chosen.add(seat)
        seed = derived_client_seed(server_seed, seat)
        taken.append(SeatTaken(seat, name, seed, True, SEED_DERIVED))
    if len(chosen) == seats:
        raise OptionError(
            "bots", f"bots may take at most {seats - 1} of the {seats} seats", "option-invalid"
        )
    return taken


def take_seat(
    state: Table,
    name: str,
    client_seed: str | None,
    bot: bool = False,
    server_seed: bytes | None = None,
    creator: bool = False,
) -> list[Event]:
    """The next free seat. A seat that brings no ``client_seed``, and every bot,
    gets the one derived from ``server_seed`` for its index
    (:func:`derived_client_seed`): the server's part is then fixed by its
    commitment, whoever sits down first. A bot brings none. ``creator``: the
    seat is the table creator's (a person's, the first such; see :class:`SeatTaken`)."""
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
    marked = bool(creator) and not bot and not any(s is not None and s.creator for s in state.seats)
    if client_seed is None:
        if server_seed is None:
            raise SeedError("a seat without a client_seed needs the server seed to derive one")
        derived = derived_client_seed(server_seed, free[0])
        return [SeatTaken(free[0], name, derived, bool(bot), SEED_DERIVED, marked)]
    validate_client_seed(client_seed)
    return [SeatTaken(free[0], name, client_seed, bool(bot), SEED_PLAYER, marked)]


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
