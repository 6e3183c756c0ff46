"""The Hazari auto-arranger: a strong, valid arrangement for any 13 cards.

It is used for bots, for seats whose turn times out and as the suggestion in
``legal_moves``. The arranger maximises the *expected card points* of an
arrangement against a model of the other players:

- For round ``r`` and a group of key ``k``, ``G_r(k)`` is the chance that one
  opponent's round-``r`` group is weaker (ties count half, since a tie goes to
  whichever group is laid later). ``G_r`` comes from :data:`FIELD`, the
  distribution of each round's group in a field of players who arrange
  sensibly (see below); the chance of beating all three opponents is taken
  as ``G_r(k) ** 3``.
- Winning round ``r`` is worth the group's own card points plus the expected
  points of the opponents' cards laid in it (9 cards in rounds 1-3, 12 in
  round 4, at the average value of the cards this seat does not hold).

The search is exhaustive with branch and bound: every ordered choice of the
three-card groups (strongest first) with the remaining four cards as group 4,
pruned by an upper bound that uses the fact that win chances only grow with
the key. It returns the best arrangement under the model; ties are broken by
search order, which depends only on the set of cards, so the arranger is a
deterministic function of the hand.

:data:`FIELD` is the fixed point of "arrange against the field, then measure
the field of those arrangements", started from the greedy arranger (best
three cards first). ``python -m bench.bench_hazari --field`` recomputes it.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from itertools import combinations
from typing import Final, Protocol

import numpy as np

from .combos import CARD_STRS, KEY3, POINTS, TYPE_SHIFT, card_index, key3, key4

Groups = tuple[tuple[str, ...], ...]
"""An arrangement: four groups of 3, 3, 3 and 4 canonical card strings."""

GROUP_SIZES: Final = (3, 3, 3, 4)
OPPONENTS: Final = 3

# Keys at the 64 quantiles ((i + 0.5) / 64) of each round's group in the
# field; recomputed by ``python -m bench.bench_hazari --field``.
FIELD: Final[tuple[tuple[int, ...], ...]] = (
    (
        0x3C20,
        0x4200,
        0x4400,
        0x4500,
        0x4600,
        0x4700,
        0x4800,
        0x4800,
        0x4900,
        0x4900,
        0x4A00,
        0x4A00,
        0x4B00,
        0x4B00,
        0x4C00,
        0x4C00,
        0x4C00,
        0x4C00,
        0x4C00,
        0x4D00,
        0x4D00,
        0x4D00,
        0x4D00,
        0x5200,
        0x5300,
        0x5400,
        0x5500,
        0x5600,
        0x5700,
        0x5800,
        0x5900,
        0x5A00,
        0x5B00,
        0x5C00,
        0x5D00,
        0x6000,
        0x6000,
        0x6100,
        0x6200,
        0x6200,
        0x6300,
        0x6300,
        0x6300,
        0x6400,
        0x6400,
        0x6500,
        0x6500,
        0x6600,
        0x6600,
        0x6700,
        0x6700,
        0x6800,
        0x6800,
        0x6800,
        0x6900,
        0x6900,
        0x6A00,
        0x6A00,
        0x6B00,
        0x6B00,
        0x6B00,
        0x6C00,
        0x6C00,
        0x6C00,
    ),
    (
        0x3710,
        0x3941,
        0x3A54,
        0x3B30,
        0x3B70,
        0x3B96,
        0x3C41,
        0x3C64,
        0x3C87,
        0x3CA6,
        0x4200,
        0x4200,
        0x4300,
        0x4300,
        0x4400,
        0x4400,
        0x4400,
        0x4500,
        0x4500,
        0x4500,
        0x4600,
        0x4600,
        0x4700,
        0x4700,
        0x4700,
        0x4700,
        0x4800,
        0x4800,
        0x4800,
        0x4800,
        0x4900,
        0x4900,
        0x4900,
        0x4900,
        0x4A00,
        0x4A00,
        0x4A00,
        0x4A00,
        0x4B00,
        0x4B00,
        0x4B00,
        0x4B00,
        0x4C00,
        0x4C00,
        0x4C00,
        0x4C00,
        0x4C00,
        0x4D00,
        0x4D00,
        0x4D00,
        0x4D00,
        0x4D00,
        0x5200,
        0x5400,
        0x5500,
        0x5700,
        0x5800,
        0x5A00,
        0x5C00,
        0x5D00,
        0x6100,
        0x6200,
        0x6400,
        0x6800,
    ),
    (
        0x2270,
        0x2570,
        0x2830,
        0x2A20,
        0x2C30,
        0x3530,
        0x3640,
        0x3741,
        0x3764,
        0x3852,
        0x3921,
        0x3960,
        0x3976,
        0x3A40,
        0x3A61,
        0x3A75,
        0x3A87,
        0x3B21,
        0x3B42,
        0x3B62,
        0x3B73,
        0x3B83,
        0x3B91,
        0x3B98,
        0x3C20,
        0x3C40,
        0x3C54,
        0x3C65,
        0x3C73,
        0x3C84,
        0x3C92,
        0x3C96,
        0x3CA3,
        0x3CA9,
        0x3CB5,
        0x4200,
        0x4200,
        0x4200,
        0x4300,
        0x4300,
        0x4300,
        0x4300,
        0x4400,
        0x4400,
        0x4400,
        0x4500,
        0x4500,
        0x4500,
        0x4600,
        0x4600,
        0x4600,
        0x4600,
        0x4700,
        0x4700,
        0x4800,
        0x4800,
        0x4800,
        0x4900,
        0x4900,
        0x4A00,
        0x4B00,
        0x4C00,
        0x4D00,
        0x5500,
    ),
    (
        0x1732,
        0x1931,
        0x1A54,
        0x1A96,
        0x1B76,
        0x1BA8,
        0x1C98,
        0x1CB7,
        0x2080,
        0x2130,
        0x21C0,
        0x2290,
        0x2320,
        0x23A0,
        0x2450,
        0x24C0,
        0x2580,
        0x2650,
        0x2720,
        0x27A0,
        0x2860,
        0x28B0,
        0x29A0,
        0x2A80,
        0x2B20,
        0x2B80,
        0x2BC0,
        0x2CA0,
        0x3420,
        0x3530,
        0x3621,
        0x3652,
        0x3740,
        0x3752,
        0x3810,
        0x3850,
        0x3862,
        0x3874,
        0x3941,
        0x3961,
        0x3971,
        0x3983,
        0x3A32,
        0x3A53,
        0x3A64,
        0x3A74,
        0x3A85,
        0x3A97,
        0x3B40,
        0x3B52,
        0x3B64,
        0x3B75,
        0x3B87,
        0x3B96,
        0x3BA6,
        0x3C51,
        0x3C72,
        0x3C83,
        0x3C96,
        0x3CA7,
        0x3CB8,
        0x4300,
        0x4500,
        0x4800,
    ),
)


def _all_three_card_keys() -> list[int]:
    return sorted({KEY3[a * 2704 + b * 52 + c] for a, b, c in combinations(range(52), 3)})


ALL_KEYS: Final[list[int]] = _all_three_card_keys()
"""The 741 distinct three-card keys, weakest first."""


_FULL: Final = (1 << 13) - 1
_POSITIONS: Final = np.array(list(combinations(range(13), 3)), dtype=np.intp)
_POS_A: Final = _POSITIONS[:, 0].copy()
_POS_B: Final = _POSITIONS[:, 1].copy()
_POS_C: Final = _POSITIONS[:, 2].copy()
_TRIPLE_MASKS: Final = (1 << _POS_A) | (1 << _POS_B) | (1 << _POS_C)
"""The places of each three of 13 cards, and their bits, in the order of ``combinations``."""
_INDEX_OF_MASK: Final = {int(m): t for t, m in enumerate(_TRIPLE_MASKS)}
_KEY3: Final = np.array(KEY3, dtype=np.int64)
_POINTS: Final = np.array(POINTS, dtype=np.int64)
_POINTS_BITS: Final = 6
_KEY_POINTS: Final = _KEY3 << _POINTS_BITS | (
    _POINTS[:, None, None] + _POINTS[None, :, None] + _POINTS[None, None, :]
).reshape(-1)
"""``_KEY_POINTS[a * 2704 + b * 52 + c]``: the key of three cards, then their points."""
_POINTS_SHIFT: Final = 13
_KEY_SHIFT: Final = _POINTS_SHIFT + _POINTS_BITS


def _threes(four: tuple[int, ...]) -> tuple[int, int, int, int]:
    mask = sum(1 << x for x in four)
    a, b, c, d = (_INDEX_OF_MASK[mask ^ 1 << x] for x in four)
    return a, b, c, d


_THREES_OF: Final = {sum(1 << x for x in f): _threes(f) for f in combinations(range(13), 4)}
"""The indices (in the order of ``combinations``) of the four threes of each four of 13 cards."""


class Shuffles(Protocol):
    """Anything with ``random.Random.shuffle`` (only tests and benchmarks use chance)."""

    def shuffle(self, x: list[int]) -> None: ...


class Arranger:
    """Best arrangement against a field model; a plain function of the hand.

    ``field`` holds, for each of the four rounds, the sorted keys of sampled
    field groups (any number of samples); the default is :data:`FIELD`.
    """

    def __init__(self, field: Sequence[Sequence[int]] = FIELD) -> None:
        if len(field) != 4 or not all(field):
            raise ValueError("a field needs sampled keys for each of the four rounds")
        self.win: dict[int, tuple[float, float, float, float]] = {}
        for k in ALL_KEYS:
            chances = []
            for samples in field:
                below = bisect_left(samples, k)
                equal = bisect_right(samples, k) - below
                chances.append(((below + 0.5 * equal) / len(samples)) ** OPPONENTS)
            self.win[k] = (chances[0], chances[1], chances[2], chances[3])

    def arrange_indices(self, hand: Iterable[int]) -> list[list[int]]:
        """The best arrangement of 13 card indices (see :func:`card_index`)."""
        cards = sorted(hand, reverse=True)
        groups = [
            [cards[x] for x in range(13) if mask >> x & 1] for mask in self._search(cards, False)
        ]
        used = {c for g in groups for c in g}
        groups.append([c for c in cards if c not in used])
        return groups

    def first_type(self, hand: Iterable[int]) -> int:
        """The combination type (a :class:`~.combos.Combo` value) of the first
        group of :meth:`arrange_indices`, by the same search stopped as soon as
        that type is settled."""
        cards = sorted(hand, reverse=True)
        mask = self._search(cards, True)[0]
        a, b, c = (cards[x] for x in range(13) if mask >> x & 1)
        return KEY3[a * 2704 + b * 52 + c] >> TYPE_SHIFT

    def _search(self, cards: list[int], first_only: bool) -> tuple[int, int, int]:
        """Branch and bound over the triples of ``cards`` (13, highest first);
        the masks of the three chosen triples (bit ``x`` is ``cards[x]``).

        With ``first_only`` the search stops once no first group of another
        type than the best one found so far can still win: the type of the
        first chosen triple is then final (later first groups of that type
        could only change its other digits); the rest is not.
        """
        if len(cards) != 13 or len(set(cards)) != 13:
            raise ValueError(f"an arrangement needs 13 distinct cards, got {len(cards)}")
        win = self.win
        opponent_card = (360 - sum(POINTS[c] for c in cards)) / 39
        pot3, pot4 = 9 * opponent_card, 12 * opponent_card
        # Strongest first (ties: more points first, then the mask), so each
        # loop below only meets groups that may follow the previous one. Each
        # triple is one int, key, points and mask packed in that order, so
        # sorting the ints sorts by (key, points, mask); numpy does the 286 at once.
        hand = np.array(cards, dtype=np.int64)
        found = _KEY_POINTS[(hand * 2704)[_POS_A] + (hand * 52)[_POS_B] + hand[_POS_C]]
        codes = found << _POINTS_SHIFT | _TRIPLE_MASKS
        codes.sort()
        codes = codes[::-1]
        keys: list[int] = (codes >> _KEY_SHIFT).tolist()
        pts: list[int] = (codes >> _POINTS_SHIFT & 63).tolist()
        masks: list[int] = (codes & _FULL).tolist()
        # A four-card group is worth its best three: the largest key (and
        # points, below it) of its four threes, found in the order of ``combinations``.
        found_at: list[int] = found.tolist()
        threes_of = _THREES_OF
        total = sum(POINTS[c] for c in cards)
        full = _FULL
        # Upper bounds: a group can hold at most 30 (three cards) or 40 points.
        top3, top4 = pot3 + 30, pot4 + 40
        best = -1.0
        chosen: tuple[int, int, int] = (0, 0, 0)
        n = len(keys)
        # For ``first_only``: the type of the outer triple and the bound of the
        # first triple after it of a lower type (bounds only fall along the list).
        block_type, lower_bound = -1, -1.0
        for i in range(n):
            k1, p1, m1 = keys[i], pts[i], masks[i]
            w = win[k1]
            if (w[0] + w[1] + w[2]) * top3 + w[3] * top4 <= best:
                break
            if first_only and best >= 0:
                if k1 >> TYPE_SHIFT != block_type:
                    block_type, lower_bound = k1 >> TYPE_SHIFT, -1.0
                    for x in range(i + 1, n):
                        if keys[x] >> TYPE_SHIFT < block_type:
                            wx = win[keys[x]]
                            lower_bound = (wx[0] + wx[1] + wx[2]) * top3 + wx[3] * top4
                            break
                if block_type == keys[chosen[0]] >> TYPE_SHIFT and lower_bound <= best:
                    break
            v1 = w[0] * (pot3 + p1)
            for j in range(i + 1, n):
                m2 = masks[j]
                if m2 & m1:
                    continue
                w = win[keys[j]]
                if v1 + (w[1] + w[2]) * top3 + w[3] * top4 <= best:
                    break
                p2 = pts[j]
                v2 = v1 + w[1] * (pot3 + p2)
                m12 = m1 | m2
                for k in range(j + 1, n):
                    m3 = masks[k]
                    if m3 & m12:
                        continue
                    k3 = keys[k]
                    w = win[k3]
                    if v2 + w[2] * top3 + w[3] * top4 <= best:
                        break
                    t0, t1, t2, t3 = threes_of[full ^ m12 ^ m3]
                    k4 = max(found_at[t0], found_at[t1], found_at[t2], found_at[t3]) >> _POINTS_BITS
                    if k4 > k3:
                        continue
                    p3 = pts[k]
                    p4 = total - p1 - p2 - p3
                    value = v2 + w[2] * (pot3 + p3) + win[k4][3] * (pot4 + p4)
                    if value > best:
                        best, chosen = value, (i, j, k)
        return masks[chosen[0]], masks[chosen[1]], masks[chosen[2]]

    def arrange(self, hand: Iterable[str]) -> Groups:
        """The best arrangement of 13 cards as canonical strings, each group
        written highest card first."""
        return _as_strs(self.arrange_indices(card_index(c) for c in hand))


def _as_strs(groups: Sequence[Sequence[int]]) -> Groups:
    return tuple(tuple(CARD_STRS[c] for c in sorted(g, reverse=True)) for g in groups)


def greedy_indices(hand: Iterable[int]) -> list[list[int]]:
    """Best three cards first, then the best three of the rest, and so on.

    Always valid: each group is the best three of the cards left, so the last
    four cards cannot hold anything better than group 3. This is the
    starting field of :data:`FIELD` and a baseline in the benchmark.
    """
    rest = sorted(hand, reverse=True)
    groups: list[list[int]] = []
    for _ in range(3):
        best = max(combinations(rest, 3), key=lambda t: key3(*t))
        groups.append(list(best))
        rest = [c for c in rest if c not in best]
    groups.append(rest)
    return groups


def greedy_arrangement(hand: Iterable[str]) -> Groups:
    return _as_strs(greedy_indices(card_index(c) for c in hand))


def random_indices(hand: Iterable[int], rng: Shuffles) -> list[list[int]]:
    """A uniformly random valid arrangement (for tests and benchmarks).

    A uniformly random split into 3, 3, 3 and 4 cards, the three-card groups
    sorted strongest first, kept only if the four-card group is the weakest
    (rejection sampling keeps the choice uniform over valid arrangements).
    """
    cards = list(hand)
    while True:
        rng.shuffle(cards)
        triples = sorted((cards[0:3], cards[3:6], cards[6:9]), key=lambda g: -key3(*g))
        quad = cards[9:13]
        if key4(*quad) <= key3(*triples[2]):
            return [*triples, quad]


def random_arrangement(hand: Iterable[str], rng: Shuffles) -> Groups:
    return _as_strs(random_indices((card_index(c) for c in hand), rng))


DEFAULT: Final = Arranger()


def arrange(hand: Iterable[str]) -> Groups:
    """The auto-arranger's arrangement of 13 cards (see :class:`Arranger`)."""
    return DEFAULT.arrange(hand)


def first_type(hand: Iterable[str]) -> int:
    """The combination type of the first group of :func:`arrange` (see
    :meth:`Arranger.first_type`): ``combo_of(key(arrange(hand)[0]))``."""
    return DEFAULT.first_type(card_index(c) for c in hand)
