"""Azi's cards: the short deck, rank order, trumps and who takes a trick.

Cards travel through the engine as canonical strings (``"TD"``); these
helpers are shared by the engine and the bot so both read the rules the
same way.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache
from typing import Final

from ..cards import canonical_deck

RANKS: Final = "6789TJQKA"
"""Rank in every suit, low to high."""


def rank_of(card: str) -> int:
    return RANKS.index(card[0])


def suit_of(card: str) -> str:
    return card[1]


@cache
def deck(size: int) -> tuple[str, ...]:
    """The canonical deck order of ``docs/cards.md`` (27 or 36 cards)."""
    return tuple(str(c) for c in canonical_deck(size))


def suits_of_deck(size: int) -> str:
    return "CDHS" if size == 36 else "DHS"


def power(card: str, led: str, trump: str, six_on_stage: bool) -> int:
    """How strongly ``card`` competes for a trick led in suit ``led``.

    Trumps beat everything else, the six of trumps tops them all when six on
    stage is in force; a card of neither the led suit nor trumps cannot win
    (-1).
    """
    rank = rank_of(card)
    if suit_of(card) == trump:
        if six_on_stage and card[0] == "6":
            return 200
        return 100 + rank
    if suit_of(card) == led:
        return rank
    return -1


def trick_winner(plays: Sequence[tuple[int, str]], trump: str, six_on_stage: bool) -> int:
    """The seat whose card takes the trick (``plays`` in play order)."""
    led = suit_of(plays[0][1])
    seat, _ = max(plays, key=lambda p: power(p[1], led, trump, six_on_stage))
    return seat


def playable(hand: Iterable[str], led: str | None, trump: str) -> list[str]:
    """The cards of ``hand`` that may go to a trick led in ``led`` (``None``: leading).

    Follow suit if able (any rank); else trump if able; else anything.
    """
    cards = list(hand)
    if led is None:
        return cards
    follow = [c for c in cards if suit_of(c) == led]
    if follow:
        return follow
    trumps = [c for c in cards if suit_of(c) == trump]
    return trumps or cards


def sort_key(card: str) -> tuple[int, int]:
    return ("CDHS".index(suit_of(card)), rank_of(card))


def sorted_cards(cards: Iterable[str]) -> list[str]:
    """Cards grouped by suit (C D H S), low to high within a suit."""
    return sorted(cards, key=sort_key)
