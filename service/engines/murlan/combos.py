"""Murlan's combinations: card codes, what a set of cards is, what beats what.

The engine works on small integer card codes rather than strings, because a
random playout lists and checks thousands of plays a second. A code sorts in
the game's order: rank first (``3 4 … K A 2``), then suit (``C D H S``), then
the black and the red joker, so sorting codes gives the canonical order of a
play's cards. Every code has a name (``CARD_NAMES``) and every name a code
(``CARD_CODES``).

A combination is described by a :class:`Combo` ``(kind, size, value)``;
singles, pairs, triples and quads are valued by rank, straights by their top
card's place in the sequence ``A 2 3 4 … K A``.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Sequence
from itertools import combinations, groupby, pairwise, product
from typing import Final, NamedTuple

from ..base import RuleError
from ..cards import CardError, parse_card

RANK_ORDER: Final = "3456789TJQKA2"
"""The ranks that have suits, low to high; the two jokers follow."""
SUIT_ORDER: Final = "CDHS"
RANK_NAMES: Final[tuple[str, ...]] = (*RANK_ORDER, "BJ", "RJ")

ACE: Final = RANK_ORDER.index("A")
TWO: Final = RANK_ORDER.index("2")
BLACK_JOKER_RANK: Final = 13
RED_JOKER_RANK: Final = 14
RANK_COUNT: Final = 15

CARD_NAMES: Final[tuple[str, ...]] = (
    *(r + s for r in RANK_ORDER for s in SUIT_ORDER),
    "BJ",
    "RJ",
)
CARD_CODES: Final[dict[str, int]] = {name: code for code, name in enumerate(CARD_NAMES)}
RANK_OF: Final[tuple[int, ...]] = (
    *(code >> 2 for code in range(52)),
    BLACK_JOKER_RANK,
    RED_JOKER_RANK,
)
RANK_START: Final[tuple[int, ...]] = (*range(0, 52, 4), 52, 53)
"""The lowest code of each rank."""
DECK_SIZE: Final = 54

SINGLE: Final = "single"
PAIR: Final = "pair"
TRIPLE: Final = "triple"
QUAD: Final = "quad"
STRAIGHT: Final = "straight"
SAME_RANK_KINDS: Final[tuple[str, ...]] = ("", SINGLE, PAIR, TRIPLE, QUAD)
"""Kind of a same-rank group, indexed by its number of cards."""

MIN_STRAIGHT: Final = 5
TOP_PLACE: Final = 13
"""Places in ``A 2 3 … K A`` run 0 (low ace) to 13 (high ace)."""
PLACE_RANK: Final[tuple[int, ...]] = (ACE, TWO, *range(0, 11), ACE)
"""The rank at each place of the straight sequence."""


ALL_RANKS_STRAIGHT: Final = 13
"""A straight of all thirteen ranks reads as ``A-2-…-K`` or ``2-…-K-A``: the
same cards. It is taken at its higher reading (top place 13), so places
0..12 are not a separate straight."""


def is_straight_window(low: int, high: int) -> bool:
    """Whether places ``low..high`` make a straight of their own."""
    length = high - low + 1
    return MIN_STRAIGHT <= length < ALL_RANKS_STRAIGHT or (low, high) == (1, TOP_PLACE)


def _window_ranks(low: int, high: int) -> tuple[int, ...]:
    return tuple(sorted(PLACE_RANK[p] for p in range(low, high + 1)))


WINDOW_RANKS: Final[dict[tuple[int, int], tuple[int, ...]]] = {
    (low, high): _window_ranks(low, high)
    for low in range(TOP_PLACE + 1)
    for high in range(low, TOP_PLACE + 1)
    if is_straight_window(low, high)
}
"""Ranks of each possible straight (lowest and highest place), in code order
so that a product over them yields cards already sorted."""


class Combo(NamedTuple):
    """A legal combination: its kind, number of cards and value."""

    kind: str
    size: int
    value: int

    def describe(self) -> str:
        if self.kind == STRAIGHT:
            low = self.value - self.size + 1
            names = [RANK_NAMES[PLACE_RANK[p]] for p in range(low, self.value + 1)]
            return f"straight {'-'.join(n.replace('T', '10') for n in names)}"
        return f"{self.kind} of {RANK_NAMES[self.value]}"


SINGLES: Final[tuple[Combo, ...]] = tuple(Combo(SINGLE, 1, RANK_OF[c]) for c in range(DECK_SIZE))
"""Each card played alone, built once."""


# -- card codes ---------------------------------------------------------------
def card_code(token: object) -> int:
    """The code of one card token (``"7h"``, ``"10S"``, ``"BJ"``…).

    Raises :class:`RuleError` ``bad_card`` naming the token when it is not a card.
    """
    if isinstance(token, str):
        code = CARD_CODES.get(token)
        if code is not None:
            return code
    try:
        return CARD_CODES[str(parse_card(token))]
    except CardError as exc:
        raise RuleError("bad_card", str(exc)) from exc


def parse_play(tokens: object) -> tuple[int, ...]:
    """The sorted codes of a ``cards`` list; rejects non-lists, bad and repeated cards."""
    if not isinstance(tokens, (list, tuple)):
        raise RuleError(
            "bad_cards", f"cards must be a list of cards such as ['7H'], not {tokens!r}"
        )
    if not tokens:
        raise RuleError("no_cards", "a play needs at least one card (to pass, send action 'pass')")
    get = CARD_CODES.get
    codes: list[int] = []
    for token in tokens:
        code = get(token) if type(token) is str else None  # fast path: canonical names
        codes.append(card_code(token) if code is None else code)
    codes.sort()
    if len(set(codes)) != len(codes):
        twice = next(a for a, b in pairwise(codes) if a == b)
        raise RuleError("duplicate_card", f"card {CARD_NAMES[twice]} appears twice in {tokens!r}")
    return tuple(codes)


def names(codes: Iterable[int]) -> list[str]:
    return [CARD_NAMES[c] for c in codes]


# -- classification --------------------------------------------------------------
def straight_place(ranks: Sequence[int]) -> int | None:
    """The top place of a straight with these (distinct) ranks, or ``None``.

    A 2 makes any ace low; an ace without a 2 can only be high, since a low
    ace would need the 2 next to it. All thirteen ranks read as ``2-…-K-A``.
    """
    if len(ranks) == ALL_RANKS_STRAIGHT and len(set(ranks)) == ALL_RANKS_STRAIGHT:
        return TOP_PLACE if max(ranks) <= TWO else None
    has_two = TWO in ranks
    places = []
    for r in ranks:
        if r > TWO:  # jokers never join a straight
            return None
        if r == TWO:
            places.append(1)
        elif r == ACE:
            places.append(0 if has_two else TOP_PLACE)
        else:
            places.append(r + 2)
    low, high = min(places), max(places)
    if high - low + 1 != len(ranks) or len(set(places)) != len(ranks):
        return None
    return high


def classify(codes: Sequence[int]) -> Combo | None:
    """What ``codes`` (sorted, distinct) form when played together, or ``None``."""
    n = len(codes)
    if n == 0:
        return None
    if n == 1:
        return SINGLES[codes[0]]
    first = RANK_OF[codes[0]]
    if n <= 4:
        if first > TWO or any(RANK_OF[c] != first for c in codes):
            return None  # mixed ranks, or the two jokers
        return Combo(SAME_RANK_KINDS[n], n, first)
    ranks = [RANK_OF[c] for c in codes]
    top = straight_place(ranks)
    return None if top is None else Combo(STRAIGHT, n, top)


# -- beating --------------------------------------------------------------------
def beat_failure(new: Combo, old: Combo, any_higher: bool) -> tuple[str, str] | None:
    """Why ``new`` does not beat ``old`` as ``(rule, message)``, or ``None`` if it does."""
    if new.kind == QUAD:
        if old.kind != QUAD or new.value > old.value:
            return None
        return "not_higher", f"{new.describe()} does not beat {old.describe()}: needs a higher quad"
    if old.kind == QUAD:
        return "only_quad_beats_quad", f"only a higher quad beats {old.describe()}"
    if new.kind != old.kind or new.size != old.size:
        return (
            "does_not_match",
            f"{new.describe()} ({new.size} cards) cannot follow {old.describe()} "
            f"({old.size} cards): play the same kind and number of cards, or a quad",
        )
    if new.value <= old.value:
        return "not_higher", f"{new.describe()} is not higher than {old.describe()}"
    if new.kind == STRAIGHT and not any_higher and new.value != old.value + 1:
        return (
            "straight_not_next",
            f"{new.describe()} does not beat {old.describe()}: a straight is beaten only "
            "by the straight of the same length exactly one higher",
        )
    return None


def beats(new: Combo, old: Combo, any_higher: bool) -> bool:
    return beat_failure(new, old, any_higher) is None


# -- enumeration -------------------------------------------------------------------
# The legal plays are described as blocks before any is built: ``(count,
# pools, size)`` stands for ``combinations(pools[0], size)`` when ``size`` is
# positive and for ``product(*pools)`` when it is 0. Listing every play
# expands the blocks in order (:func:`expand`); a random playout only needs
# how many there are and the k-th one (:func:`nth_play`), which the blocks give
# without building the others. Both read the same blocks, so they agree on
# the order by construction.
Block = tuple[int, tuple[Sequence[int], ...], int]

_CHOICES: Final[dict[tuple[int, int], tuple[tuple[int, ...], ...]]] = {
    (n, size): tuple(combinations(range(n), size)) for n in range(2, 5) for size in range(2, n + 1)
}
_CHOICE_COUNT: Final[dict[tuple[int, int], int]] = {k: len(v) for k, v in _CHOICES.items()}


def group_by_rank(hand: Iterable[int]) -> list[list[int]]:
    """The hand's cards of each rank (codes ascending), indexed by rank."""
    groups: list[list[int]] = [[] for _ in range(RANK_COUNT)]
    for c in hand:
        groups[RANK_OF[c]].append(c)
    return groups


def _straight_blocks(
    groups: Sequence[Sequence[int]], size: int, tops: Iterable[int], blocks: list[Block]
) -> None:
    """Straights of ``size`` cards topping at one of ``tops``, by top."""
    for top in tops:
        ranks = WINDOW_RANKS.get((top - size + 1, top))
        if ranks is None:
            continue
        pools = tuple([groups[r] for r in ranks])
        count = 1
        for pool in pools:
            count *= len(pool)
        if count:
            blocks.append((count, pools, 0))


def _same_rank_blocks(hand: Sequence[int], size: int, above: int, blocks: list[Block]) -> None:
    """Groups of ``size`` cards of one rank higher than ``above``, read
    straight from the sorted hand (no regrouping: the common case of following)."""
    n = len(hand)
    i = bisect_left(hand, RANK_START[above + 1]) if above + 1 < RANK_COUNT else n
    if size == 1:
        if i < n:
            blocks.append((n - i, (hand[i:],), 1))
        return
    while i < n:
        rank = RANK_OF[hand[i]]
        if rank > TWO:
            break
        j = i + 1
        while j < n and RANK_OF[hand[j]] == rank:
            j += 1
        if j - i >= size:
            blocks.append((_CHOICE_COUNT[j - i, size], (hand[i:j],), size))
        i = j


def quads(hand: Sequence[int], above: int = -1) -> list[tuple[int, ...]]:
    """Quads of rank higher than ``above``. The four cards of a rank have the
    codes ``4r .. 4r+3``, so in a sorted hand a quad is a card whose code is a
    multiple of 4 followed three places later by that code plus 3."""
    low = (above + 1) * 4
    return [
        (a, a + 1, a + 2, a + 3)
        for a, d in zip(hand, hand[3:], strict=False)
        if d - a == 3 and not a & 3 and a >= low
    ]


def _lead_blocks(hand: Sequence[int], blocks: list[Block]) -> None:
    """Every play a leader may make, from one pass over the sorted hand."""
    if not hand:
        return
    blocks.append((len(hand), (hand,), 1))
    groups: list[Sequence[int]] = [()] * RANK_COUNT
    pairs: list[Block] = []
    triples: list[Block] = []
    fours: list[Block] = []
    for rank, cards in groupby(hand, RANK_OF.__getitem__):
        group = groups[rank] = tuple(cards)
        n = len(group)
        if n >= 2:
            pairs.append((_CHOICE_COUNT[n, 2], (group,), 2))
            if n >= 3:
                triples.append((_CHOICE_COUNT[n, 3], (group,), 3))
                if n == 4:
                    fours.append((1, (group,), 4))
    blocks += pairs
    blocks += triples
    blocks += fours
    if len(hand) - len(pairs) - len(triples) - len(fours) >= MIN_STRAIGHT:
        _lead_straights(groups, blocks)  # (five ranks or more are held)


def _lead_straights(groups: Sequence[Sequence[int]], blocks: list[Block]) -> None:
    """Every straight, run by run of held places: by top, then lowest card."""
    placed = [groups[r] for r in PLACE_RANK]
    p = 0
    while p <= TOP_PLACE:
        if not placed[p]:
            p += 1
            continue
        first = p
        sizes = [1]  # running products of the pool sizes from ``first``
        while p <= TOP_PLACE and placed[p]:
            sizes.append(sizes[-1] * len(placed[p]))
            p += 1
        for top in range(first + MIN_STRAIGHT - 1, p):
            for start in range(first, top - MIN_STRAIGHT + 2):
                if top - start >= ALL_RANKS_STRAIGHT - 1 and start == 0:
                    continue  # all thirteen ranks count once, as 2-...-K-A
                count = sizes[top - first + 1] // sizes[start - first]
                if start >= 2:
                    pools = tuple(placed[start : top + 1])
                else:  # the low ace and the 2 have the highest codes: they go last
                    pools = (*placed[2 : top + 1], *placed[start:2])
                blocks.append((count, pools, 0))


def play_blocks(hand: Sequence[int], table: Combo | None, any_higher: bool) -> list[Block]:
    """The plays from ``hand`` (sorted codes) that may be made on ``table``
    (``None``: leading), as blocks.

    Order when leading: singles, pairs, triples and quads by rank, then
    straights by top card (longer first at the same top). When following:
    the plays of the table's kind by value, then quads.
    """
    blocks: list[Block] = []
    if table is None:
        _lead_blocks(hand, blocks)
        return blocks
    kind = table.kind
    if kind == STRAIGHT:
        last = TOP_PLACE if any_higher else min(table.value + 1, TOP_PLACE)
        tops = range(table.value + 1, last + 1)
        _straight_blocks(group_by_rank(hand), table.size, tops, blocks)
    elif kind != QUAD:
        _same_rank_blocks(hand, table.size, table.value, blocks)
    if len(hand) >= 4:
        above = table.value if kind == QUAD else -1
        blocks.extend((1, (q,), 4) for q in quads(hand, above))
    return blocks


def expand(blocks: Iterable[Block]) -> list[tuple[int, ...]]:
    """Every play the blocks stand for, in order."""
    out: list[tuple[int, ...]] = []
    for _, pools, size in blocks:
        if size == 1:
            out.extend([(c,) for c in pools[0]])
        elif size:
            out.extend(combinations(pools[0], size))
        else:
            out.extend(product(*pools))
    return out


def nth_play(blocks: Iterable[Block], k: int) -> tuple[int, ...]:
    """``expand(blocks)[k]`` without building the other plays."""
    for count, pools, size in blocks:
        if k >= count:
            k -= count
            continue
        if size == 1:
            return (pools[0][k],)
        if size:
            pool = pools[0]
            if size == len(pool):
                return tuple(pool)
            return tuple([pool[i] for i in _CHOICES[len(pool), size][k]])
        picked = []
        for pool in reversed(pools):  # product(): the last pool varies fastest
            k, i = divmod(k, len(pool))
            picked.append(pool[i])
        picked.reverse()
        return tuple(picked)
    raise IndexError("play index out of range")


def plays(hand: Sequence[int], table: Combo | None, any_higher: bool) -> list[tuple[int, ...]]:
    """Every play from ``hand`` that may be made on ``table`` (``None``:
    leading), each as sorted codes, in the order of :func:`play_blocks`."""
    return expand(play_blocks(hand, table, any_higher))
