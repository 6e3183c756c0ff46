"""The events of a Hazari Lite match.

A deal is :class:`Dealt`, then one :class:`Arranged` per seat (hidden from
the others until the rounds lay it open), then the four :class:`RoundPlayed`
and :class:`DealScored`; :class:`MatchEnded` closes the match.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar, Final

from ..base import HIDDEN, JSON, Event

Hand = tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Dealt(Event):
    """A new deal: 13 cards each, dealt one at a time from ``dealer + 1``."""

    type: ClassVar[str] = "Dealt"
    is_deal: ClassVar[bool] = True
    deal: int
    dealer: int
    hands: tuple[Hand, ...]


@dataclass(frozen=True, slots=True)
class Arranged(Event):
    """A seat said up with this arrangement; hidden from the others until
    the rounds lay it open."""

    type: ClassVar[str] = "Arranged"
    seat: int
    groups: tuple[Hand, ...]

    def move_body(self) -> JSON:
        return {"action": "arrange", "groups": [list(g) for g in self.groups]}

    def redact(self, viewer: int | None) -> Event:
        if viewer == self.seat:
            return self
        return replace(self, groups=tuple(tuple(HIDDEN for _ in g) for g in self.groups))


@dataclass(frozen=True, slots=True)
class RoundPlayed(Event):
    """One round: every seat's group laid face up (``laid`` and ``combos`` are
    indexed by seat, ``order`` is the laying order); ``winner`` collects the
    cards, worth ``points``."""

    type: ClassVar[str] = "RoundPlayed"
    deal: int
    round: int
    leader: int
    order: tuple[int, ...]
    laid: tuple[Hand, ...]
    combos: tuple[str, ...]
    winner: int
    points: int


@dataclass(frozen=True, slots=True)
class DealScored(Event):
    """The card points each seat collected this deal (they add up to 360)
    and the running totals."""

    type: ClassVar[str] = "DealScored"
    deal: int
    points: tuple[int, ...]
    scores: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class MatchEnded(Event):
    """Someone reached the target with the single highest total."""

    type: ClassVar[str] = "MatchEnded"
    scores: tuple[int, ...]
    winners: tuple[int, ...]


EVENT_TYPES: Final[tuple[type[Event], ...]] = (Dealt, Arranged, RoundPlayed, DealScored, MatchEnded)
