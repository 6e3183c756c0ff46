"""The events of a Murlan match, in the order they usually occur.

The deal, the exchange's automatic half and what follows a play (a cleared
table, a player going out, the hand's and the match's outcome) are derived by
the engine; ``CardGivenBack``, ``CardsPlayed`` and ``Passed`` are seats'
moves and give back their ``api.md`` body from :meth:`move_body`. Cards are
written as canonical strings.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

from ..base import HIDDEN, JSON, Event


@dataclass(frozen=True, slots=True)
class HandDealt(Event):
    """All 54 cards dealt one at a time, the first to ``dealer`` (seat ``deal mod 4``).

    ``hands`` hold each seat's cards in the order received; ``deal`` is also
    the hand number.
    """

    type: ClassVar[str] = "HandDealt"
    is_deal: ClassVar[bool] = True
    deal: int
    dealer: int
    hands: tuple[tuple[str, ...], ...]


@dataclass(frozen=True, slots=True)
class CardGiven(Event):
    """The exchange's automatic half: the last finisher of the previous hand
    gives his highest card to the first finisher. Only those two see it."""

    type: ClassVar[str] = "CardGiven"
    from_seat: int
    to_seat: int
    card: str

    def redact(self, viewer: int | None) -> Event:
        if viewer in (self.from_seat, self.to_seat):
            return self
        return replace(self, card=HIDDEN)


@dataclass(frozen=True, slots=True)
class ExchangeSkipped(Event):
    """No exchange this hand: the last finisher was dealt both jokers."""

    type: ClassVar[str] = "ExchangeSkipped"
    last_finisher: int
    first_finisher: int
    reason: str = "both_jokers"


@dataclass(frozen=True, slots=True)
class CardGivenBack(Event):
    """The first finisher's ``give_back`` move; only the two seats see the card."""

    type: ClassVar[str] = "CardGivenBack"
    seat: int
    to_seat: int
    card: str

    def move_body(self) -> JSON:
        return {"action": "give_back", "card": self.card}

    def redact(self, viewer: int | None) -> Event:
        if viewer in (self.seat, self.to_seat):
            return self
        return replace(self, card=HIDDEN)


@dataclass(frozen=True, slots=True)
class PlayStarted(Event):
    """The hand's play begins with ``leader``; ``must_include`` is ``"3S"`` on
    the first hand's opening lead, else ``None``."""

    type: ClassVar[str] = "PlayStarted"
    leader: int
    must_include: str | None = None


@dataclass(frozen=True, slots=True)
class CardsPlayed(Event):
    """A ``play`` move: ``cards`` in canonical order and the combination they form."""

    type: ClassVar[str] = "CardsPlayed"
    seat: int
    cards: tuple[str, ...]
    combination: str

    def move_body(self) -> JSON:
        return {"action": "play", "cards": list(self.cards)}


@dataclass(frozen=True, slots=True)
class Passed(Event):
    """A ``pass`` move: it only skips this turn."""

    type: ClassVar[str] = "Passed"
    seat: int

    def move_body(self) -> JSON:
        return {"action": "pass"}


@dataclass(frozen=True, slots=True)
class TableCleared(Event):
    """Everyone else still holding cards passed: the table is cleared and
    ``leader`` leads (the last player to play, or the next one still in
    when he has gone out)."""

    type: ClassVar[str] = "TableCleared"
    leader: int


@dataclass(frozen=True, slots=True)
class WentOut(Event):
    """``seat`` played his last card and finished in ``place`` (1-3)."""

    type: ClassVar[str] = "WentOut"
    seat: int
    place: int


@dataclass(frozen=True, slots=True)
class HandEnded(Event):
    """Three players are out. ``order`` lists the seats first to last;
    ``points`` and ``scores`` are indexed by seat."""

    type: ClassVar[str] = "HandEnded"
    hand: int
    order: tuple[int, ...]
    points: tuple[int, ...]
    scores: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class TargetRaised(Event):
    """Two or more players reached the target in one hand: it rises by 10."""

    type: ClassVar[str] = "TargetRaised"
    reached: tuple[int, ...]
    target: int


@dataclass(frozen=True, slots=True)
class TopTied(Event):
    """At the last target several players share the highest total: another hand."""

    type: ClassVar[str] = "TopTied"
    seats: tuple[int, ...]
    score: int


@dataclass(frozen=True, slots=True)
class MatchWon(Event):
    type: ClassVar[str] = "MatchWon"
    winner: int
    scores: tuple[int, ...]


EVENT_TYPES: tuple[type[Event], ...] = (
    HandDealt,
    CardGiven,
    ExchangeSkipped,
    CardGivenBack,
    PlayStarted,
    CardsPlayed,
    Passed,
    TableCleared,
    WentOut,
    HandEnded,
    TargetRaised,
    TopTied,
    MatchWon,
)
