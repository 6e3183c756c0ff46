"""The grinding harness: which grinders the report catches, and from how many games
(the table of docs/fairness.md)."""

from __future__ import annotations

import pytest

from .grinding import caught, kings_caught

pytestmark = pytest.mark.stats

RUNS = 10


def test_a_grinder_chasing_a_moving_person_is_caught_by_the_people_row() -> None:
    """Best of 2 seeds per game against the one person at a table of bots, at a
    random seat (under any name): 200 games of 6 deals. No seat, position or
    player row is his, only the pooled ``people`` row."""
    results = [caught(run, 200, 6, 2) for run in range(RUNS)]
    assert sum(by_people for _, by_people in results) >= 9, results


def test_the_same_grinder_over_fewer_games_is_caught_less_often() -> None:
    """The figure the documentation gives for 100 games: sometimes, not always."""
    results = [caught(100 + run, 100, 6, 2) for run in range(RUNS)]
    assert 2 <= sum(by_people for _, by_people in results) <= 9, results


def test_a_grinder_chasing_one_seats_kings_is_caught_by_the_rank_rows() -> None:
    """Best of 4 seeds per game for seat 0's kings, 50 games of 6 deals."""
    results = [kings_caught(run, 50, 6, 4) for run in range(RUNS)]
    assert sum(by_rank for _, by_rank in results) >= 9, results


def shifted(context: str, r: float, up: bool) -> tuple[list[float], list[float]]:
    """A feature's fair distribution and the one a dealer makes who moves a hand's
    value one up (or down) with chance ``r``; values under 1% pooled at the ends."""
    from service.fairness.expectations import pmf

    fair = pmf(context)
    values = sorted(fair)
    biased = dict.fromkeys(values, 0.0)
    for v in values:
        to = v + (1 if up else -1)
        moved = r if to in biased else 0.0
        biased[v] += fair[v] * (1 - moved)
        if moved:
            biased[to] += fair[v] * moved
    f, b = [fair[v] for v in values], [biased[v] for v in values]
    while f[-1] < 0.01:
        x, y = f.pop(), b.pop()
        f[-1], b[-1] = f[-1] + x, b[-1] + y
    while f[0] < 0.01:
        x, y = f.pop(0), b.pop(0)
        f[0], b[0] = f[0] + x, b[0] + y
    return f, b


@pytest.mark.parametrize(
    ("context", "r", "up", "hands"),
    [
        ("hg:54:4:14:0", 0.25, True, 280),
        ("hg:54:10:14:0", 0.25, False, 513),
        ("hg:54:10:14:0", 0.1, False, 3204),
    ],
)
def test_the_hands_to_detect_of_the_documentation(
    context: str, r: float, up: bool, hands: int
) -> None:
    from service.fairness.stats import hands_to_detect

    assert hands_to_detect(*shifted(context, r, up), tests=100) == hands
