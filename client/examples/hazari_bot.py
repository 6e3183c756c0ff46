"""Hazari Lite: lay the strongest three-card group first, then the next strongest.

Each group is the best three of the cards left, so the groups go strongest
first and the last four cards (valued by their best three) come weakest.
"""

from itertools import combinations

from cardroom_client.models import HazariArrange

RANKS = "23456789TJQKA"


def strength(group):
    """A group of three, comparable as the rules rank them (higher is stronger)."""
    r = sorted((RANKS.index(card[0]) for card in group), reverse=True)
    suited = len({card[1] for card in group}) == 1
    run = 11.5 if r == [12, 1, 0] else r[0] if r[0] - r[1] == r[1] - r[2] == 1 else None
    if r[0] == r[2]:
        return (5, r)
    if run is not None:
        return (4 if suited else 3, [run])
    if suited:
        return (2, r)
    if r[0] == r[1] or r[1] == r[2]:
        return (1, [r[1], r[2] if r[0] == r[1] else r[0]])
    return (0, r)


def choose(view):
    rest, groups = list(view.hand), []
    for _ in range(3):
        best = max(combinations(rest, 3), key=strength)
        groups.append(list(best))
        rest = [card for card in rest if card not in best]
    return HazariArrange(action="arrange", groups=[*groups, rest])
