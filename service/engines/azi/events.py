"""The events of an Azi match, in the order they usually occur.

Moves a seat makes carry ``seat`` and give back their ``api.md`` body from
:meth:`move_body`; everything else is a consequence the engine derives (a
trick taken, a pot won, an Azi) or a system step (antes and deal, the
settlement). Events that are not a seat's move name seats with other field
names (``winner``, ``player``…) so ``seat`` always means "who moved".
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

from ..base import HIDDEN, JSON, Event


# -- system steps ------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class AntesPaid(Event):
    """A new hand starts: ``antes[i]`` chips went from seat ``i`` into the pot
    (0 for a seat that sits the hand out). ``hand`` counts hands from 1."""

    type: ClassVar[str] = "AntesPaid"
    hand: int
    antes: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class HandDealt(Event):
    """Deal ``deal`` (counted over the whole match, Azi replays included).

    ``trump_card`` shows trump: the card turned up after the deal
    (``cards: 3``, out of play) or the dealer's last card (``cards: 4``, it
    stays in his hand). ``six_on_stage`` is true when that card is an Ace and
    the option is on. ``azi`` marks a replay of an Azi. ``dealer_drawn_from``
    is ``n`` of the ``draw(n)`` that chose the first dealer (``None`` for
    later hands, whose dealer follows from the previous pot).
    """

    type: ClassVar[str] = "HandDealt"
    is_deal: ClassVar[bool] = True
    deal: int
    dealer: int
    hands: tuple[tuple[str, ...], ...]
    trump_card: str
    trump: str
    six_on_stage: bool
    azi: bool = False
    dealer_drawn_from: int | None = None


@dataclass(frozen=True, slots=True)
class PotSettled(Event):
    """The pot won by ``winner`` is paid out: ``payouts[i]`` chips to seat
    ``i`` (they add up to ``pot``), computed by
    :func:`service.engines.azi.settle.settle_pot` from ``contributions``."""

    type: ClassVar[str] = "PotSettled"
    winner: int
    winner_short: bool
    pot: int
    contributions: tuple[int, ...]
    payouts: tuple[int, ...]


# -- seats' moves ----------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Discarded(Event):
    """A face-down discard of the four-card deal; others see ``??``."""

    type: ClassVar[str] = "Discarded"
    seat: int
    card: str

    def move_body(self) -> JSON | None:
        return {"action": "discard", "card": self.card}

    def redact(self, viewer: int | None) -> Event:
        return self if viewer == self.seat else replace(self, card=HIDDEN)


@dataclass(frozen=True, slots=True)
class BetPlaced(Event):
    """A bet or raise to the new highest bid ``amount``; ``paid`` chips moved
    from the stack to the pot (the bid minus what he had bid before)."""

    type: ClassVar[str] = "BetPlaced"
    seat: int
    amount: int
    paid: int

    def move_body(self) -> JSON | None:
        return {"action": "bet", "amount": self.amount}


@dataclass(frozen=True, slots=True)
class Called(Event):
    """A call of the highest bid; ``all_in`` when it took the whole stack,
    ``short`` when even that did not match the bid."""

    type: ClassVar[str] = "Called"
    seat: int
    paid: int
    all_in: bool = False
    short: bool = False

    def move_body(self) -> JSON | None:
        return {"action": "call"}


@dataclass(frozen=True, slots=True)
class Folded(Event):
    type: ClassVar[str] = "Folded"
    seat: int

    def move_body(self) -> JSON | None:
        return {"action": "fold"}


@dataclass(frozen=True, slots=True)
class CardPlayed(Event):
    type: ClassVar[str] = "CardPlayed"
    seat: int
    card: str

    def move_body(self) -> JSON | None:
        return {"action": "play", "card": self.card}


@dataclass(frozen=True, slots=True)
class BoughtIn(Event):
    """Joined the replay of an Azi by paying ``paid`` (half the pot) into it."""

    type: ClassVar[str] = "BoughtIn"
    seat: int
    paid: int

    def move_body(self) -> JSON | None:
        return {"action": "buy_in"}


@dataclass(frozen=True, slots=True)
class Declined(Event):
    type: ClassVar[str] = "Declined"
    seat: int

    def move_body(self) -> JSON | None:
        return {"action": "decline"}


@dataclass(frozen=True, slots=True)
class LeaveRequested(Event):
    """The seat asked to leave. It takes effect at once (:class:`PlayerLeft`
    follows) unless the seat is involved in the unsettled pot, in which case
    it takes effect right after that pot is settled."""

    type: ClassVar[str] = "LeaveRequested"
    seat: int

    def move_body(self) -> JSON | None:
        return {"action": "leave"}


# -- consequences ---------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class BiddingEnded(Event):
    """Everyone still in has matched ``highest`` or is all in. ``leader``
    leads the first trick; ``short`` lists the seats all in below the bid
    (they are short for this pot)."""

    type: ClassVar[str] = "BiddingEnded"
    leader: int
    highest: int
    short: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class TrickTaken(Event):
    """Trick number ``trick`` (1-3): ``seats[k]`` played ``cards[k]``."""

    type: ClassVar[str] = "TrickTaken"
    trick: int
    winner: int
    seats: tuple[int, ...]
    cards: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PotWon(Event):
    """``winner`` wins the pot, ``how`` = ``all_folded`` or ``two_tricks``;
    settlement follows as a system step."""

    type: ClassVar[str] = "PotWon"
    winner: int
    how: str
    pot: int


@dataclass(frozen=True, slots=True)
class AziDeclared(Event):
    """Three tricks, one each: the pot stays. ``takers`` are in the replay
    for free, ``dealer`` (the third trick's winner) deals it, and
    ``candidates`` may buy in for ``price`` chips, deciding in that order."""

    type: ClassVar[str] = "AziDeclared"
    takers: tuple[int, ...]
    dealer: int
    price: int
    candidates: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class PlayerLeft(Event):
    """``player`` left the table with ``stack`` chips; he is dealt in no more."""

    type: ClassVar[str] = "PlayerLeft"
    player: int
    stack: int


@dataclass(frozen=True, slots=True)
class MatchEnded(Event):
    """``reason``: ``ante`` (fewer than two can pay it) or ``left`` (all but
    one have left). ``results[i]`` is the final stack minus the buy-in."""

    type: ClassVar[str] = "MatchEnded"
    reason: str
    stacks: tuple[int, ...]
    results: tuple[int, ...]


EVENT_TYPES: tuple[type[Event], ...] = (
    AntesPaid,
    HandDealt,
    Discarded,
    BetPlaced,
    Called,
    Folded,
    BiddingEnded,
    CardPlayed,
    TrickTaken,
    PotWon,
    AziDeclared,
    BoughtIn,
    Declined,
    PotSettled,
    LeaveRequested,
    PlayerLeft,
    MatchEnded,
)
