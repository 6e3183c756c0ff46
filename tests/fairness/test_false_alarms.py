"""The honest false-alarm rate, estimated over enough reports to tell 1% from 2%.

docs/fairness.md promises that with honest deals a report flags nothing in
99 runs out of 100. 4,000 honest reports (200 Murlan deals each, 32 tested
rows: jokers, 2s, aces and the 3 of spades per seat and per position) are
analysed by the report itself. The test passes when at most ``LIMIT`` of them
flag anything: with a true rate of 1% that fails with probability below 0.5%,
and with a true rate of 2% it passes with probability below 1%, so a report
that flagged twice as often as promised would fail it.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from scipy import stats

from service.fairness import report
from service.fairness.stats import ALPHA

from .honest import honest_murlan_reports

pytestmark = [pytest.mark.stats, pytest.mark.xdist_group("false-alarms")]

REPORTS = 4000
DEALS = 200
LIMIT = int(stats.binom.isf(0.005, REPORTS, ALPHA))
"""The most honest reports allowed to flag anything."""


@cache
def honest_analyses() -> tuple[np.ndarray, np.ndarray]:
    """Per report: its smallest adjusted p-value; and every tested row's raw p-value."""
    smallest, raw = [], []
    for counts in honest_murlan_reports(31, REPORTS, DEALS):
        analysis = report.analyse(counts)
        smallest.append(min(analysis.adjusted.values()))
        raw += [analysis.fits[k].p_value for k in analysis.adjusted]
    return np.array(smallest), np.array(raw, dtype=float)


def test_the_limit_tells_one_percent_from_two() -> None:
    assert stats.binom.sf(LIMIT, REPORTS, 0.01) < 0.005
    assert stats.binom.cdf(LIMIT, REPORTS, 0.02) < 0.01


def test_honest_reports_flag_anything_at_most_one_time_in_a_hundred() -> None:
    smallest, raw = honest_analyses()
    assert len(smallest) == REPORTS and len(raw) == REPORTS * 32
    false_alarms = int((smallest < ALPHA).sum())
    assert false_alarms <= LIMIT, (false_alarms, LIMIT)


def test_the_estimate_would_catch_a_report_that_forgot_its_correction() -> None:
    """The same reports flagged on raw p-values below 1% (no correction over the
    32 rows) go far over the limit: the test can fail."""
    _, raw = honest_analyses()
    uncorrected = int((raw.reshape(REPORTS, 32).min(axis=1) < ALPHA).sum())
    assert uncorrected > 3 * LIMIT


@pytest.mark.parametrize("level", [0.001, 0.01, 0.05])
def test_single_rows_are_not_too_often_small(level: float) -> None:
    """Each tested row's p-value is at most as often below ``level`` as a uniform
    one (its tail is what the correction relies on), over 128,000 rows."""
    _, raw = honest_analyses()
    n = len(raw)
    below = int((raw <= level).sum())
    assert below <= stats.binom.isf(0.001, n, level), (below, n * level)
    assert below >= stats.binom.ppf(0.001, n, level / 3), (below, n * level)
