"""The table's own events: a table created, a seat taken, a turn timed out, the
seed revealed, a table abandoned, a seat away and back.

Every other event of a game is its engine's (:attr:`Engine.event_types`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from ..base import Event
from ..registry import engine_for
from ..shuffle import ALGORITHM, SEED_PLAYER

COMMON_OPTIONS = ("turn_timeout_s", "bot_delay_s")
"""The options of :class:`GameCreated` that are the table's, not its engine's."""


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
    """``seed_origin`` says who chose ``client_seed``: ``player`` (it came with the
    request), ``derived`` (the server derived it from the committed seed) or, in a
    game stored before origins were recorded, ``unrecorded``. ``creator`` marks
    the first person's seat taken by the client that opened the table (the same
    ``Client-Secret``, or ``Client-Id`` and address, as its ``POST /games``);
    false in games stored before it was recorded."""

    type: ClassVar[str] = "SeatTaken"
    seat: int
    name: str
    client_seed: str
    bot: bool = False
    seed_origin: str = SEED_PLAYER
    creator: bool = False


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


def event_types(game: str) -> tuple[type[Event], ...]:
    return TABLE_EVENTS + engine_for(game).event_types
