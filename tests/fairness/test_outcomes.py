"""Who wins: tested at tables of bots against games simulated on fresh seeds,
descriptive at tables with people (docs/fairness.md)."""

from __future__ import annotations

from collections import Counter
from functools import cache
from typing import Any

import pytest

from service.engines import table
from service.fairness import outcomes, projection, report
from service.fairness.expectations import pmf, simulated_error, simulated_size
from service.fairness.outcomes import (
    SIMULATED_TABLES,
    bot_game,
    options_key,
    outcome_pmf,
    play_bots,
    winner_of,
)


def default_options(game: str, seats: int) -> dict[str, Any]:
    created = table.create("x", game, None, seats, "0" * 64)[0]
    return dict(created.options)  # type: ignore[attr-defined]


def test_the_committed_table_holds_every_simulated_kind() -> None:
    simulated = outcomes.table()
    for game, seats, games in SIMULATED_TABLES:
        key = options_key(game, default_options(game, seats), seats)
        entry = simulated[key]
        assert entry["game"] == game and entry["seats"] == seats and entry["games"] == games
        for by in ("seat", "position"):
            assert sum(entry[by].values()) == games
            law, size = outcome_pmf(key, by) or ({}, 0)
            assert size == games and sum(law.values()) == pytest.approx(1.0)
            context = f"sim:outcome:{key}:{by}"
            assert pmf(context) == law and simulated_size(context) == games
            assert 0 < (simulated_error(context) or 0) < 0.025


@pytest.mark.parametrize("game", [g for g, _, _ in SIMULATED_TABLES])
def test_the_committed_games_replay_as_listed(game: str) -> None:
    """Anyone can rerun the simulation: its first games give the listed winners."""
    seats = next(s for g, s, _ in SIMULATED_TABLES if g == game)
    entry = outcomes.table()[options_key(game, default_options(game, seats), seats)]
    for index in range(2):
        assert list(play_bots(game, seats, index)) == entry["first_games"][index]


@cache
def played(game: str, people: frozenset[int]) -> list[Any]:
    return bot_game(game, 4, 900, people=people)


def counts_of(events: list[Any]) -> Counter[str]:
    state = table.fold(events)
    noted = [projection.Noted(v, e) for v, e in enumerate(events, start=1)]
    return projection.game_counts(state, noted)[0]


def test_a_game_of_bots_counts_its_winner_against_the_simulation() -> None:
    events = played("azi", frozenset())
    state = table.fold(events)
    winner = next(w for e in events if (w := winner_of(e, 4)) is not None)
    first = next(e.dealer for e in events if getattr(e, "is_deal", False))
    key = options_key("azi", state.options, 4)
    counts = counts_of(events)
    assert counts[f"azi/27/3|bot_winner_seat|all|sim:outcome:{key}:seat|{winner}"] == 1
    position = 4 if winner == 4 else (winner - first) % 4
    assert counts[f"azi/27/3|bot_winner_position|all|sim:outcome:{key}:position|{position}"] == 1
    assert not [k for k in counts if "|winner_" in k]


def test_a_game_with_a_person_describes_its_winner_and_tests_nothing() -> None:
    events = played("azi", frozenset({2}))
    counts = counts_of(events)
    outcome = [k for k in counts if "winner_" in k and "pot_" not in k]
    assert sorted(k.split("|")[1] for k in outcome) == ["winner_position", "winner_seat"]
    assert all("|u:5|" in k for k in outcome)
    doc = report.build({k: 40 * v for k, v in counts.items()}, {})
    rows = [
        (f["feature"], g)
        for t in doc["tables"]
        for f in t["features"]
        for g in f["groups"]
        if f["feature"] in ("winner_seat", "winner_position")
    ]
    assert rows and all(g["p_value"] is None and not g["flagged"] for _, g in rows)
    assert {g["verdict_code"] for _, g in rows} == {"descriptive-outcome"}


def test_options_never_simulated_are_descriptive_even_for_bots() -> None:
    fields = outcomes.outcome_fields(
        "murlan", "murlan", {"target": 7}, outcomes.Outcome(1, 1, 4), all_bots=True
    )
    assert fields == ["murlan|winner_seat|all|u:5|1", "murlan|winner_position|all|u:5|1"]


def test_the_rebuild_reads_the_event_that_names_the_winner() -> None:
    assert {"MatchWon"} <= projection._noted_types("murlan")
    assert {"MatchEnded"} <= projection._noted_types("azi")
    assert {"MatchEnded"} <= projection._noted_types("hazari")


def test_the_first_dealer_is_carried_from_deal_to_deal_and_to_the_winner() -> None:
    """The worker notes a game in pieces: the first deal's dealer reaches the
    winner's note through every later deal's summary."""
    events = played("hazari", frozenset())
    state = table.fold(events)
    noted = [projection.Noted(v, e) for v, e in enumerate(events, start=1)]
    last: dict[str, Any] | None = None
    whole: Counter[str] = Counter()
    for start in range(0, len(noted), 37):
        found, last = projection.notes(state, noted[start : start + 37], last)
        for obs in found.values():
            whole.update(obs)
    assert whole == projection.game_counts(state, noted)[0]
    assert [k for k in whole if "|bot_winner_position|" in k]
