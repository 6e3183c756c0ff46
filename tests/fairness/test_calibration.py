"""The report on honest and on rigged deals (run alone with ``pytest -m stats``).

Deals come from the published shuffle with fixed seeds, so every run is the
same. The rigged dealers exist only here.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from scipy import stats

from service.fairness import report
from service.fairness.expectations import pmf
from service.fairness.stats import ALPHA, hands_to_detect

from .synthetic import azi_deal, hazari_deal, murlan_deal, shuffler, tally

pytestmark = pytest.mark.stats

AZI = {"deck": 27, "cards": 3, "six_on_stage": True}


def honest_counts(run: int, deals: int) -> Counter[str]:
    sh = shuffler(f"honest-{run}")
    counts = tally("murlan", {}, [murlan_deal(sh, d) for d in range(deals)])
    counts += tally("azi", AZI, [azi_deal(sh, 10_000 + d) for d in range(deals)])
    counts += tally("hazari", {}, [hazari_deal(sh, 20_000 + d) for d in range(deals // 4)])
    return counts


def row(doc: dict[str, object], table: str, feature: str, group: str) -> dict[str, object]:
    for t in doc["tables"]:  # type: ignore[attr-defined]
        if t["table"] == table:
            for f in t["features"]:
                if f["feature"] == feature:
                    for g in f["groups"]:
                        if g["group"] == group:
                            return dict(g)
    raise AssertionError(f"no row {table} {feature} {group}")


def test_p_values_of_single_features_are_uniform_on_the_published_shuffle() -> None:
    """The false-alarm rate itself is estimated in test_false_alarms.py."""
    runs = 60
    singles: dict[str, list[float]] = {"jokers": [], "trumps": [], "troys": []}
    for run in range(runs):
        counts = honest_counts(run, 240)
        doc = report.build(counts, {})
        mine = report.build(counts, {}, player="ana")
        singles["jokers"].append(float(row(doc, "murlan", "jokers", "seat:0")["p_value"]))  # type: ignore[arg-type]
        singles["trumps"].append(float(row(doc, "azi/27/3", "trumps", "pos:1")["p_value"]))  # type: ignore[arg-type]
        singles["troys"].append(float(row(mine, "hazari", "troys", "player:ana")["p_value"]))  # type: ignore[arg-type]
    for feature, ps in singles.items():
        assert stats.kstest(ps, "uniform").pvalue > 0.001, (feature, sorted(ps))


def joker_rig() -> tuple[float, list[float], list[float]]:
    """The rig of seat 0's 14-card hands: a joker 20% more often."""
    fair = pmf("hg:54:2:14:0")
    p_any = 1 - fair[0]
    r = 0.2 * p_any / (1 - p_any)
    biased = [fair[0] * (1 - r), fair[1] + fair[0] * r, fair[2]]
    return r, list(fair.values()), biased


def test_a_dealer_giving_seat_0_a_joker_20_percent_more_often_is_caught() -> None:
    r, fair, biased = joker_rig()
    need = hands_to_detect(fair, biased, tests=100)
    assert 600 < need < 900  # the figure docs/fairness.md gives
    caught = 0
    trials = 10
    for run in range(trials):
        sh = shuffler(f"rigged-{run}")
        rng = random.Random(run)
        deals = [murlan_deal(sh, d, rng, r) for d in range(need)]
        doc = report.build(tally("murlan", {}, deals), {})
        seat0 = row(doc, "murlan", "jokers", "seat:0")
        caught += bool(seat0["flagged"])
        assert float(seat0["difference"]) > 0  # type: ignore[arg-type]
    # detection power is 80% by design: at least 6 of 10 (P(fewer) < 3.5%)
    assert caught >= 6, caught


def test_a_dealer_dealing_himself_one_more_trump_is_caught() -> None:
    fair = pmf("hg:26:8:3:0")
    shifted = [0.0, fair[0], fair[1], fair[2] + fair[3]]
    need = hands_to_detect(list(fair.values()), shifted, tests=100)
    assert need < 60
    caught = 0
    for run in range(10):
        sh = shuffler(f"azi-rigged-{run}")
        deals = [azi_deal(sh, d, rigged=True) for d in range(4 * need)]  # the dealer: 1 in 4
        doc = report.build(tally("azi", AZI, deals), {})
        dealer = row(doc, "azi/27/3", "trumps", "pos:0")
        caught += bool(dealer["flagged"])
        assert row(doc, "azi/27/3", "trumps", "pos:1")["flagged"] is False
    assert caught >= 6, caught


def test_exact_distributions_against_the_reference_shuffle() -> None:
    sh = shuffler("reference")
    counts = tally("murlan", {}, [murlan_deal(sh, d) for d in range(3000)])
    counts += tally("hazari", {}, [hazari_deal(sh, 10_000 + d) for d in range(1500)])
    doc = report.build(counts, {})
    for table, feature in (
        ("murlan", "quads"),
        ("murlan", "longest_straight"),
        ("murlan", "twos"),
        ("hazari", "color_runs"),
        ("hazari", "runs"),
        ("hazari", "pairs"),
        ("hazari", "best_combination"),
        ("hazari", "arranger_total"),
    ):
        p = row(doc, table, feature, "seat:1")["p_value"]
        assert p is not None and float(p) > ALPHA / 10, (table, feature, p)  # type: ignore[arg-type]
