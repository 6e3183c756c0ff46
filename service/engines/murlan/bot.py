"""A Murlan bot: a deterministic function of what one seat can see.

The bot splits its hand into units (straights, same-rank groups, jokers,
quads) the way a player plans a hand, and values the plan by how many
*weak* units are left: a low single is a turn it will have to win back
later, while a red joker, a pair of 2s or a quad will take the lead when it
wants. Each candidate play is scored by the plan of the cards it leaves,
plus what it spends of the hand's strength; passing keeps the plan as it
is. That one rule gives the behaviour players expect: shed low cards and
low combinations first, keep quads, don't break a straight for a single.
Three overrides: play anything that empties the hand; leading with a sure
winner and one more combination, play the winner first (finish strong);
and when an opponent is about to go out, stop saving strength and beat the
table as high as possible (or lead what he cannot follow).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Final

from .combos import (
    QUAD,
    RANK_COUNT,
    RANK_OF,
    STRAIGHT,
    TOP_PLACE,
    WINDOW_RANKS,
    classify,
)

if TYPE_CHECKING:
    from .state import MurlanState

Counts = tuple[int, ...]

QUAD_COST: Final = -0.6
"""A quad is better than free: it takes the lead back whenever needed."""
SPEND_WEIGHT: Final = 0.6
"""How much it costs to use strength now rather than later."""
SHED_BONUS: Final = 0.02
"""Among equally good plays, shed more cards."""
DANGER_CARDS: Final = 3
"""An opponent holding this many cards or fewer may go out on his next turn."""


def _single_strength(rank: int) -> float:
    return max(0.0, (rank - 7) / 7)


def _group_strength(rank: int) -> float:
    return max(0.0, (rank - 6) / 6)


def unit_strength(kind: str, size: int, value: int) -> float:
    """How likely a unit is to win the table, 0 (never) to 1 (always)."""
    if kind == QUAD:
        return 1.0
    if kind == STRAIGHT:
        return 1.0 if value == TOP_PLACE else 0.7
    if size == 1:
        return _single_strength(value)
    return _group_strength(value)


@lru_cache(maxsize=1 << 16)
def plan_cost(counts: Counts) -> float:
    """The cost of the best split of a hand (cards per rank) into units."""
    base = 0.0
    for rank, n in enumerate(counts):
        if n == 4:
            base += QUAD_COST
        elif n:
            base += 1.0 - unit_strength("", n, rank)
    best = base
    for (_, high), ranks in WINDOW_RANKS.items():
        if all(0 < counts[r] < 4 for r in ranks):
            rest = list(counts)
            for r in ranks:
                rest[r] -= 1
            cost = 1.0 - unit_strength(STRAIGHT, len(ranks), high) + plan_cost(tuple(rest))
            best = min(best, cost)
    return best


def counts_of(cards: Sequence[int]) -> list[int]:
    counts = [0] * RANK_COUNT
    for c in cards:
        counts[RANK_OF[c]] += 1
    return counts


def _fewest_cards(state: MurlanState, seat: int) -> int:
    """The fewest cards an opponent still in holds (99 if none is in)."""
    fewest = 99
    for s, hand in enumerate(state.deal.hands):
        if s != seat and hand:
            fewest = min(fewest, len(hand))
    return fewest


def choose_play(
    state: MurlanState, seat: int, options: Sequence[tuple[int, ...]]
) -> tuple[int, ...] | None:
    """The play to make (sorted codes), or ``None`` to pass."""
    hand = state.deal.hands[seat]
    if not options:
        return None
    for play in options:
        if len(play) == len(hand):
            return play
    if state.trick.table is None:
        finish = _finishing_lead(hand, options)
        if finish is not None:
            return finish
    counts = counts_of(hand)
    fewest = _fewest_cards(state, seat)
    danger = fewest <= DANGER_CARDS
    leading = state.trick.table is None
    best: tuple[int, ...] | None = None
    best_score = plan_cost(tuple(counts)) if not leading else float("inf")
    if danger and not leading:
        best_score = float("inf")  # an opponent is close to going out: beat whenever able
    for play in options:
        combo = classify(play)
        assert combo is not None
        rest = list(counts)
        for c in play:
            rest[RANK_OF[c]] -= 1
        strength = unit_strength(combo.kind, combo.size, combo.value)
        if danger:
            # Spend freely; prefer plays the short-handed opponent cannot answer.
            score = plan_cost(tuple(rest)) - 2.0 * strength
            if leading and combo.size > fewest:
                score -= 2.0
        else:
            # A straight's strength is in being hard to follow, not in high
            # cards that could beat something later: playing it spends nothing.
            spent = 0.0 if combo.kind == STRAIGHT else strength
            score = plan_cost(tuple(rest)) + SPEND_WEIGHT * spent
            if combo.kind == QUAD and len(play) != len(hand):
                score += 1.0  # keep bombs for when they are needed
        score -= SHED_BONUS * len(play)
        if score < best_score:
            best, best_score = play, score
    if best is None and leading:
        best = options[0]
    return best


def _finishing_lead(
    hand: Sequence[int], options: Sequence[tuple[int, ...]]
) -> tuple[int, ...] | None:
    """A sure winner whose cards leave one combination: play it first, keep
    the lead, and go out with the rest (finish strong)."""
    for play in options:
        combo = classify(play)
        assert combo is not None
        if unit_strength(combo.kind, combo.size, combo.value) < 1.0:
            continue
        gone = set(play)
        if classify([c for c in hand if c not in gone]) is not None:
            return play
    return None


def give_back(hand: Sequence[int], choices: Sequence[int]) -> int:
    """The card to return in the exchange: the one whose loss hurts the plan least."""
    counts = counts_of(hand)
    best, best_cost = choices[0], float("inf")
    for code in choices:
        rest = list(counts)
        rest[RANK_OF[code]] -= 1
        cost = plan_cost(tuple(rest))
        if cost < best_cost:
            best, best_cost = code, cost
    return best
