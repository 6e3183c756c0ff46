"""Hazari combinations: what three (or four) cards are worth, as one integer.

Every set of three cards gets a *key*, an ``int`` such that a higher key is a
stronger combination and equal keys are equal combinations (suits never
rank). A set of four cards is worth its best three, so its key is the largest
key among its four subsets. Comparing two keys is therefore the whole of
comparing two groups, in every round and for every pair of sizes.

The key packs ``type << 12 | a << 8 | b << 4 | c`` where ``type`` is a
:class:`Combo` and ``a, b, c`` are rank numbers (``2`` is 0, ``A`` is 12) in
the order the rules compare them:

- troy: the rank; color run and run: the slot of the run (``A-K-Q`` 13,
  ``A-2-3`` 12, ``K-Q-J`` 11 … ``4-3-2`` 2); color and indi: highest, middle,
  lowest; pair: the pair's rank, then the odd card.

Cards are handled as small integers internally (``rank * 4 + suit``) because
the auto-arranger values every three cards of a hand for every move it
suggests; a precomputed table makes a three-card key one list lookup.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import IntEnum
from itertools import combinations, product
from typing import Final

from ..cards import RANKS, SUITS, Card, CardError, parse_card


class Combo(IntEnum):
    """The six types of three-card combination, weakest first."""

    INDI = 1
    PAIR = 2
    COLOR = 3
    RUN = 4
    COLOR_RUN = 5
    TROY = 6

    @property
    def label(self) -> str:
        return self.name.lower().replace("_", " ")


ACE: Final = 12
RUN_AKQ: Final = 13
RUN_A23: Final = 12
TYPE_SHIFT: Final = 12

# -- cards as integers -----------------------------------------------------------


CARD_STRS: Final[tuple[str, ...]] = tuple(r + s for r in RANKS for s in SUITS)
"""Canonical string of each card index (``CARD_STRS[card_index("TD")] == "TD"``)."""

INDEX_OF: Final[dict[str, int]] = {s: i for i, s in enumerate(CARD_STRS)}


def card_index(card: object) -> int:
    """``rank * 4 + suit`` with ranks ``2..A`` as 0..12 and suits ``C D H S`` as 0..3.

    Strings go through :func:`~..cards.parse_card` (so ``"10s"`` is ``TS``);
    a joker raises :class:`~..cards.CardError`, as Hazari has none.
    """
    if not isinstance(card, Card):
        index = INDEX_OF.get(card) if isinstance(card, str) else None
        if index is not None:
            return index
        card = parse_card(card)
    if card.is_joker:
        raise CardError(str(card), "Hazari is played without jokers")
    return RANKS.index(card.rank) * 4 + SUITS.index(card.suit)


def card_points(card: Card | str | int) -> int:
    """10 for A K Q J T, 5 for 2-9 (the pack totals 360)."""
    index = card if isinstance(card, int) else card_index(card)
    return 10 if index >> 2 >= RANKS.index("T") else 5


POINTS: Final[tuple[int, ...]] = tuple(card_points(i) for i in range(52))


# -- the key -------------------------------------------------------------------------


def _key_of_indices(i: int, j: int, k: int) -> int:
    a, b, c = sorted((i >> 2, j >> 2, k >> 2), reverse=True)
    if a == c:
        return Combo.TROY << TYPE_SHIFT | a << 8
    if a == b or b == c:
        pair, odd = (a, c) if a == b else (b, a)
        return Combo.PAIR << TYPE_SHIFT | pair << 8 | odd << 4
    same_suit = (i & 3) == (j & 3) == (k & 3)
    if a == ACE and b == ACE - 1 and c == ACE - 2:
        slot: int | None = RUN_AKQ
    elif a == ACE and b == 1 and c == 0:
        slot = RUN_A23
    elif a - 1 == b and b - 1 == c:
        slot = a
    else:
        slot = None
    if slot is not None:
        return (Combo.COLOR_RUN if same_suit else Combo.RUN) << TYPE_SHIFT | slot << 8
    kind = Combo.COLOR if same_suit else Combo.INDI
    return kind << TYPE_SHIFT | a << 8 | b << 4 | c


def _build_table() -> list[int]:
    """Every ordered triple of card indices, from two tables over ranks alone
    (one of three cards of one suit, one of mixed suits): a key depends on
    nothing else, and this keeps the import fast."""
    mixed = [0] * 13**3
    one_suit = [0] * 13**3
    for ra, rb, rc in product(range(13), repeat=3):
        i = ra * 169 + rb * 13 + rc
        mixed[i] = _key_of_indices(ra * 4, rb * 4 + 1, rc * 4 + 2)
        if len({ra, rb, rc}) == 3:
            one_suit[i] = _key_of_indices(ra * 4, rb * 4, rc * 4)
    table: list[int] = []
    for a in range(52):
        rank_a, suit_a = (a >> 2) * 169, a & 3
        for b in range(52):
            base = rank_a + (b >> 2) * 13
            if b & 3 == suit_a:
                table += [
                    (one_suit if c & 3 == suit_a else mixed)[base + (c >> 2)] for c in range(52)
                ]
            else:
                table += [mixed[base + (c >> 2)] for c in range(52)]
    return table


KEY3: Final[list[int]] = _build_table()
"""``KEY3[a * 2704 + b * 52 + c]``: the key of the card indices ``a, b, c`` (any
order; entries with a repeated card are meaningless)."""


def key3(a: int, b: int, c: int) -> int:
    """The key of three distinct card indices."""
    return KEY3[a * 2704 + b * 52 + c]


def key4(a: int, b: int, c: int, d: int) -> int:
    """The key of four distinct card indices: the best of its four threes."""
    t = KEY3
    ab = a * 2704 + b * 52
    return max(t[ab + c], t[ab + d], t[a * 2704 + c * 52 + d], t[b * 2704 + c * 52 + d])


def key_of_indices(indices: Sequence[int]) -> int:
    if len(indices) == 3:
        return key3(*indices)
    if len(indices) == 4:
        return key4(*indices)
    raise ValueError(f"a Hazari group has 3 or 4 cards, not {len(indices)}")


def key(cards: Iterable[Card | str]) -> int:
    """The total-order key of three or four cards (``Card`` objects or strings).

    >>> key(["AS", "KS", "QS"]) > key(["AH", "2H", "3H"]) > key(["KD", "QD", "JD"])
    True
    >>> key(["7S", "7H", "2D"]) == key(["7C", "7D", "2S"])
    True
    """
    indices = [card_index(c) for c in cards]
    if len(set(indices)) != len(indices):
        raise ValueError(f"repeated card in {[CARD_STRS[i] for i in indices]}")
    return key_of_indices(indices)


def combo_of(key_value: int) -> Combo:
    return Combo(key_value >> TYPE_SHIFT)


def best_three(cards: Sequence[Card | str]) -> tuple[str, ...]:
    """The three cards that give a group its value (the group itself for three)."""
    strs = [CARD_STRS[card_index(c)] for c in cards]
    if len(strs) == 3:
        return tuple(strs)
    return max(combinations(strs, 3), key=key)


def _rank_name(rank: int) -> str:
    return RANKS[rank]


def describe_key(key_value: int) -> str:
    """A short human name for a key: ``pair of 7s, A kicker``, ``run A-2-3``."""
    combo = combo_of(key_value)
    a, b, c = (key_value >> 8) & 15, (key_value >> 4) & 15, key_value & 15
    if combo is Combo.TROY:
        return f"troy of {_rank_name(a)}s"
    if combo is Combo.PAIR:
        return f"pair of {_rank_name(a)}s, {_rank_name(b)} kicker"
    if combo in (Combo.RUN, Combo.COLOR_RUN):
        if a == RUN_AKQ:
            ranks = "A-K-Q"
        elif a == RUN_A23:
            ranks = "A-2-3"
        else:
            ranks = "-".join(_rank_name(r) for r in (a, a - 1, a - 2))
        return f"{combo.label} {ranks}"
    return f"{combo.label} {_rank_name(a)}-{_rank_name(b)}-{_rank_name(c)}"


def describe(cards: Sequence[Card | str]) -> str:
    """``describe(["7S", "7H", "AD"]) == "pair of 7s, A kicker"``; four cards
    are named by their best three."""
    return describe_key(key(cards))
