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
