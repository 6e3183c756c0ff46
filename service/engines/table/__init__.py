"""A game at a table: the part every game shares, around one engine.

The table's own events (created, seat taken, seed revealed, a turn timed
out...) are folded here; everything else is handed to the game's engine.
Like the engines, this package is pure.

What is where: :mod:`.events` (the table's events), :mod:`.state` (the
:class:`Table` state, whose turns run, and the fold: :func:`apply`,
:func:`fold`), :mod:`.rules` (options, the commands, the system step due:
:func:`pending`, :func:`advance`, and who plays a turn) and :mod:`.view`
(what a seat sees: :func:`redact`, :func:`view`). Callers write
``from service.engines import table`` and use ``table.Table``,
``table.fold``, ``table.GameCreated`` and so on.
"""

from .events import (
    BOOKKEEPING_EVENTS,
    COMMON_OPTIONS,
    TABLE_EVENTS,
    GameAbandoned,
    GameCreated,
    SeatAway,
    SeatBack,
    SeatTaken,
    SeedRevealed,
    TurnTimedOut,
    event_types,
)
from .rules import (
    AWAY_AFTER_TIMEOUTS,
    DEFAULT_TURN_TIMEOUT_S,
    NAME_MAX,
    NO_TURN_LIMIT,
    TableError,
    abandon,
    advance,
    come_back,
    create,
    decide,
    is_away,
    parse_options,
    pending,
    plays_automatically,
    take_seat,
    time_out,
    turn_changes,
)
from .state import Seat, Table, acting, apply, fold
from .view import redact, view

__all__ = [
    "AWAY_AFTER_TIMEOUTS",
    "BOOKKEEPING_EVENTS",
    "COMMON_OPTIONS",
    "DEFAULT_TURN_TIMEOUT_S",
    "NAME_MAX",
    "NO_TURN_LIMIT",
    "TABLE_EVENTS",
    "GameAbandoned",
    "GameCreated",
    "Seat",
    "SeatAway",
    "SeatBack",
    "SeatTaken",
    "SeedRevealed",
    "Table",
    "TableError",
    "TurnTimedOut",
    "abandon",
    "acting",
    "advance",
    "apply",
    "come_back",
    "create",
    "decide",
    "event_types",
    "fold",
    "is_away",
    "parse_options",
    "pending",
    "plays_automatically",
    "redact",
    "take_seat",
    "time_out",
    "turn_changes",
    "view",
]
