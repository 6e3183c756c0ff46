"""Cards in the notation of the rules: rank then suit (``TD``), plus jokers.

Every notation comes in pairs: :func:`parse_card` reads what players type
(case-insensitive, ``10`` accepted for ten) and :meth:`Card.__str__` writes
the canonical form.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from .errors import EngineError

RANKS: Final = "23456789TJQKA"
SUITS: Final = "CDHS"
JOKERS: Final = ("BJ", "RJ")
SUIT_SYMBOLS: Final = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}


class CardError(EngineError):
    """A card token that is not in the notation of ``docs/cards.md``."""

    def __init__(self, token: object, reason: str = "not a card") -> None:
        self.token = token
        super().__init__(f"bad card {token!r}: {reason}")


@dataclass(frozen=True, order=True, slots=True)
class Card:
    """A card. ``rank`` is one of ``RANKS`` (or ``"J"`` for a joker's kind);
    ``suit`` is one of ``SUITS``; jokers have ``rank == "*"`` and suit ``B``/``R``.
    """

    rank: str
    suit: str

    @property
    def is_joker(self) -> bool:
        return self.rank == "*"

    def __str__(self) -> str:
        if self.is_joker:
            return self.suit + "J"
        return self.rank + self.suit

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"

    @staticmethod
    def parse(token: str) -> Card:
        return parse_card(token)

    def pretty(self) -> str:
        """Human form with a suit symbol (``T♦``), for text renderings."""
        if self.is_joker:
            return "\U0001f0cf" + ("B" if self.suit == "B" else "R")
        return self.rank + SUIT_SYMBOLS[self.suit]


def parse_card(token: object) -> Card:
    """Parse one card token: ``"ts"``, ``"10S"``, ``"Ah"``, ``"bj"``…"""
    if not isinstance(token, str):
        raise CardError(token, "a card is a string such as 'TD'")
    text = token.strip().upper()
    if text in JOKERS:
        return Card("*", text[0])
    if len(text) == 3 and text.startswith("10"):
        text = "T" + text[2]
    if len(text) != 2:
        raise CardError(token)
    rank, suit = text[0], text[1]
    if rank not in RANKS:
        raise CardError(token, f"unknown rank {rank!r}")
    if suit not in SUITS:
        raise CardError(token, f"unknown suit {suit!r}")
    return Card(rank, suit)


def parse_cards(tokens: object) -> list[Card]:
    """Parse a list of card tokens; a string is split on commas/whitespace."""
    if isinstance(tokens, str):
        tokens = tokens.replace(",", " ").split()
    if not isinstance(tokens, (list, tuple)):
        raise CardError(tokens, "expected a list of cards")
    return [parse_card(t) for t in tokens]


def format_cards(cards: Iterable[Card]) -> list[str]:
    return [str(c) for c in cards]


def card_strs(cards: Iterable[Card]) -> tuple[str, ...]:
    return tuple(str(c) for c in cards)


def deck_52() -> list[Card]:
    """Canonical 52-card order: clubs, diamonds, hearts, spades; 2..A."""
    return [Card(r, s) for s in SUITS for r in RANKS]


def deck_54() -> list[Card]:
    """The 52 cards, then the black joker, then the red joker."""
    return [*deck_52(), Card("*", "B"), Card("*", "R")]


def deck_short(size: int = 27) -> list[Card]:
    """Azi's deck: 6..A of D H S (27), or of C D H S (36)."""
    if size == 27:
        suits: Sequence[str] = "DHS"
    elif size == 36:
        suits = "CDHS"
    else:
        raise ValueError(f"no short deck of {size} cards (27 or 36)")
    return [Card(r, s) for s in suits for r in RANKS[4:]]


def canonical_deck(size: int) -> list[Card]:
    """The canonical order for a deck of 52, 54, 27 or 36 cards."""
    if size == 52:
        return deck_52()
    if size == 54:
        return deck_54()
    return deck_short(size)
