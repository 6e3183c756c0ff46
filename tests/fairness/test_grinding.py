"""The grinding harness: which grinders the report catches, and from how many games
(the table of docs/fairness.md)."""

from __future__ import annotations

import pytest

from .grinding import caught, kings_caught, outcome_caught, shifted

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


@pytest.mark.parametrize(
    ("context", "r", "up", "hands"),
    [
        ("hg:54:4:14:0", 0.25, True, 280),
        ("hg:54:10:14:0", 0.25, False, 513),
        ("hg:54:10:14:0", 0.1, False, 3204),
        ("hg:26:3:3:0", 0.25, True, 93),
        ("trumps:26:3:K:0:0", 0.25, True, 377),
        ("sim:hazari_total:13", 0.25, True, 13445),
    ],
)
def test_the_hands_to_detect_of_the_documentation(
    context: str, r: float, up: bool, hands: int
) -> None:
    from service.fairness.stats import hands_to_detect

    assert hands_to_detect(*shifted(context, r, up), tests=100) == hands


@pytest.mark.parametrize("game", ["murlan", "azi"])
def test_a_grinder_chasing_seat_0_wins_at_tables_of_bots_is_caught(game: str) -> None:
    """Best of 2 seeds per game of bots for seat 0 winning: caught by the
    ``bot_winner_seat`` row from 300 games (docs/fairness.md), not from 50."""
    results = [outcome_caught(run, game, 300, 2) for run in range(RUNS)]
    assert sum(by_row for _, by_row in results) >= 9, results
    few = [outcome_caught(50 + run, game, 50, 2) for run in range(RUNS)]
    assert sum(by_row for _, by_row in few) <= 5, few


@pytest.mark.parametrize("game", ["murlan", "azi"])
def test_honest_games_of_bots_flag_nothing(game: str) -> None:
    """The same harness with one seed per game (no choice): nothing flagged."""
    results = [outcome_caught(900 + run, game, 300, 1) for run in range(RUNS)]
    assert not any(flagged for flagged, _ in results), results
