"""The honest false-alarm rate of the rows added to the report: Azi's ranks and
trump strength, the ``people``, ``bots`` and ``creator`` rows, and who wins a
game of bots.

A report flags a row when its Benjamini-Hochberg adjusted p-value is below
1%; the correction is honest when every tested row's raw p-value is at most
as often small as a uniform one. Each test below checks that tail over
thousands of honest rows, with bounds a doubled rate would break, and shows
that it can fail (the same rows judged the wrong way go over the bound).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from functools import cache

import numpy as np
import pytest
from scipy import stats

from service.fairness import expectations, outcomes, report
from service.fairness.features import deal_fields

from .synthetic import azi_deal, shuffler

pytestmark = [pytest.mark.stats, pytest.mark.xdist_group("new-rows-calibration")]

AZI = {"deck": 27, "cards": 3, "six_on_stage": True}
BOTS = [(True, False, True, True), (False, True, True, True), (True, True, True, False)]
"""Tables of one person and bots, the person at a different seat in turn."""


def tails_are_honest(raw: np.ndarray, levels: tuple[float, ...] = (0.01, 0.05)) -> bool:
    """At most as many p-values below each level as a uniform law allows
    (binomial, one chance in a thousand of failing an honest report)."""
    n = len(raw)
    return all(int((raw <= a).sum()) <= stats.binom.isf(0.001, n, a) for a in levels)


def azi_counts(run: int, deals: int) -> Counter[str]:
    """An honest report of Azi deals of the published shuffle at tables of one
    person and bots, the creator at a seat of his own (so every row kind is
    there: seats, positions, people, bots, creator)."""
    sh = shuffler(f"new-rows-{run}")
    counts: Counter[str] = Counter()
    for d in range(deals):
        deal = azi_deal(sh, d)
        creator = (d // 5) % 4
        counts.update(deal_fields("azi", AZI, deal, [None] * 4, BOTS[d % len(BOTS)], creator))
    return counts


NEW = ("rank_", "trump_strength")
"""The features added (Azi's ranks and trump strength); the ``people``,
``bots`` and ``creator`` rows are new for every feature."""


def new_row(key: tuple[str, str, str]) -> bool:
    _, feature, group = key
    return feature.startswith(NEW) or group in ("people", "bots", "creator")


@cache
def azi_p_values() -> np.ndarray:
    """Every new row's raw p-value over 80 honest reports of 100 deals."""
    raw: list[float] = []
    for run in range(80):
        analysis = report.analyse(azi_counts(run, 100))
        raw += [analysis.fits[k].p_value or 1.0 for k in analysis.adjusted if new_row(k)]
    return np.array(raw)


def test_azi_rank_trump_strength_people_and_bots_rows_are_honest() -> None:
    raw = azi_p_values()
    assert len(raw) > 8_000
    assert tails_are_honest(raw), [(a, int((raw <= a).sum()), len(raw) * a) for a in (0.01, 0.05)]


def test_the_tail_check_fails_a_row_that_is_twice_as_often_small() -> None:
    """The same p-values halved (a row twice as often below each level) fail."""
    assert not tails_are_honest(azi_p_values() / 2)


# -- who wins a game of bots, against a simulated law ------------------------------------


def fake_tables(law: np.ndarray, size: int, replicates: int, rng: np.random.Generator) -> dict:
    """``replicates`` simulated tables, each counted from ``size`` games drawn
    from ``law`` (as :mod:`service.fairness.outcomes` writes them)."""
    seats = len(law) - 1
    out = {}
    for r in range(replicates):
        drawn = rng.multinomial(size, law)
        entry = {str(v): int(c) for v, c in enumerate(drawn) if c}
        out[f"fake{r:05d}"] = {"seats": seats, "games": size, "seat": entry, "position": entry}
    return out


@pytest.fixture
def simulated(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The expectations read afresh from the tables the test makes, and after it."""
    expectations.pmf.cache_clear()
    yield
    expectations.pmf.cache_clear()


@pytest.mark.parametrize("games", [200, 1000])
def test_outcome_rows_against_a_simulated_law_are_honest(
    games: int, simulated: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Honest games of bots judged against a law simulated from as many games
    or more (Murlan's committed law as the truth): the simulation's own noise
    is counted in, so the rows are not too often small; without that
    allowance they would be."""
    rng = np.random.default_rng(games)
    key = next(iter(k for k, v in outcomes.table().items() if v["game"] == "murlan"))
    law_of = outcomes.outcome_pmf(key, "seat")
    assert law_of is not None
    law = np.array([law_of[0][v] for v in sorted(law_of[0])])
    law = law / law.sum()
    replicates = 3000
    tables = fake_tables(law, 1000, replicates, rng)
    monkeypatch.setattr(outcomes, "table", lambda: tables)
    counts: dict[str, int] = {}
    for r in range(replicates):
        for value, c in enumerate(rng.multinomial(games, law)):
            if c:
                counts[f"murlan|bot_winner_seat|r{r}|sim:outcome:fake{r:05d}:seat|{value}"] = int(c)
    analysis = report.analyse(counts)
    fits = list(analysis.fits.values())
    assert len(fits) == replicates and all(f.p_value is not None for f in fits)
    raw = np.array([f.p_value for f in fits], dtype=float)
    assert tails_are_honest(raw), [(a, int((raw <= a).sum())) for a in (0.01, 0.05)]
    # without the allowance: each statistic times 1 + games / 1000
    naive = np.array(
        [stats.chi2.sf(f.statistic * (1 + games / 1000), f.df) for f in fits], dtype=float
    )
    assert not tails_are_honest(naive)
