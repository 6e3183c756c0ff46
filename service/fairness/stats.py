"""Goodness of fit, multiple-testing correction and effect sizes.

Each tested group is a histogram of a feature's values; its expectation is
the sum, over the contexts it was observed in, of the number of hands times
the exact distribution of that context. Categories whose expected count is
below :data:`MIN_EXPECTED` are pooled with their neighbours, then a
chi-square goodness-of-fit test is run (``scipy.stats.chi2``); the p-values
of the whole report are corrected together by Benjamini-Hochberg
(``scipy.stats.false_discovery_control``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from statistics import NormalDist

import numpy as np

from .expectations import mean_var, pmf, simulated_size

MIN_EXPECTED = 10.0
"""Pool categories until each expects at least this many hands."""
EXACT_MAX = 4000
"""A row tested on two categories with at most this many hands gets an exact
p-value instead of the chi-square's, which is too often small there (a
lattice of few possible counts)."""
ALPHA = 0.01
"""The report's false discovery rate: with honest deals, the chance that it
flags anything at all is at most 1%."""
Z95 = NormalDist().inv_cdf(0.975)


@dataclass(slots=True)
class Histogram:
    """Observed counts of one feature in one group: ``counts[context][value]``."""

    counts: dict[str, dict[int, int]] = field(default_factory=dict)

    def add(self, context: str, value: int, count: int) -> None:
        by_value = self.counts.setdefault(context, {})
        by_value[value] = by_value.get(value, 0) + count

    @property
    def hands(self) -> int:
        return sum(sum(v.values()) for v in self.counts.values())


@dataclass(slots=True)
class Fit:
    values: list[int]
    observed: list[int]
    expected: list[float]
    bins: list[list[int]]
    """The values pooled into each tested category."""
    statistic: float | None
    df: int
    mean_observed: float
    mean_expected: float
    effect: float
    effect_ci: tuple[float, float]
    sd_expected: float
    """The spread of one hand's value under a fair deal (for scales and effect sizes)."""
    p_value: float | None = None
    exact: float | None = None
    """The exact p-value of a row tested on two categories (:func:`exact_two_sided`)."""


def expected_counts(hist: Histogram) -> dict[int, float]:
    out: dict[int, float] = {}
    for context, by_value in hist.counts.items():
        n = sum(by_value.values())
        for value, p in pmf(context).items():
            out[value] = out.get(value, 0.0) + n * p
    return out


def pool(values: Sequence[int], expected: Sequence[float]) -> list[list[int]]:
    """Adjacent values grouped so each group expects at least :data:`MIN_EXPECTED`."""
    bins: list[list[int]] = []
    current: list[int] = []
    mass = 0.0
    for value, e in zip(values, expected, strict=True):
        current.append(value)
        mass += e
        if mass >= MIN_EXPECTED:
            bins.append(current)
            current, mass = [], 0.0
    if current:
        if bins:
            bins[-1].extend(current)
        else:
            bins.append(current)
    return bins


def fit(hist: Histogram) -> Fit:
    """Observed against expected, the chi-square statistic (p-value filled by
    :func:`p_values`) and the mean difference with its 95% interval."""
    exp = expected_counts(hist)
    obs: dict[int, int] = {}
    for by_value in hist.counts.values():
        for value, count in by_value.items():
            obs[value] = obs.get(value, 0) + count
            exp.setdefault(value, 0.0)
    values = sorted(exp)
    observed = [obs.get(v, 0) for v in values]
    expected = [exp[v] for v in values]
    n = sum(observed)
    bins = pool(values, expected)
    statistic: float | None = None
    inflation = simulation_inflation(hist)
    if len(bins) >= 2:
        index = {v: i for i, v in enumerate(values)}
        o = np.array([sum(observed[index[v]] for v in b) for b in bins], dtype=float)
        e = np.array([sum(expected[index[v]] for v in b) for b in bins], dtype=float)
        statistic = float(((o - e) ** 2 / e).sum()) / inflation
    mean_obs = sum(v * c for v, c in zip(values, observed, strict=True)) / n if n else 0.0
    mean_exp = 0.0
    var_exp = 0.0
    for context, by_value in hist.counts.items():
        k = sum(by_value.values())
        m, var = mean_var(context)
        mean_exp += k * m
        var_exp += k * var
    mean_exp = mean_exp / n if n else 0.0
    # The 95% interval of the mean difference: the sample's own spread (the
    # spread a fair deal gives while there are too few hands to estimate it).
    if n >= 30:
        var_obs = sum((v - mean_obs) ** 2 * c for v, c in zip(values, observed, strict=True))
        half = Z95 * math.sqrt(var_obs / (n - 1) / n)
    else:
        half = Z95 * math.sqrt(var_exp) / n if n else math.inf
    effect = mean_obs - mean_exp
    exact = None
    if statistic is not None and len(bins) == 2 and n <= EXACT_MAX and inflation == 1.0:
        exact = exact_two_sided(hist, set(bins[0]))
    return Fit(
        values,
        observed,
        expected,
        bins,
        statistic,
        len(bins) - 1,
        mean_obs,
        mean_exp,
        effect,
        (effect - half, effect + half),
        math.sqrt(var_exp / n) if n else 0.0,
        exact=exact,
    )


def simulation_inflation(hist: Histogram) -> float:
    """How much a simulated expectation's own error widens a row's spread.

    With ``n_c`` hands of a context whose distribution was counted from
    ``N_c`` simulated ones, each observed count minus its expectation varies
    ``1 + sum(n_c**2 / N_c) / n`` times as much as against an exact law, so
    the chi-square statistic is divided by that (1 for an exact expectation):
    a report with as many hands as the simulation is not flagged for the
    simulation's own noise."""
    n = hist.hands
    extra = 0.0
    for context, by_value in hist.counts.items():
        size = simulated_size(context)
        if size:
            k = sum(by_value.values())
            extra += k * k / size
    return 1.0 + extra / n if n and extra else 1.0


def exact_two_sided(hist: Histogram, first: set[int]) -> float:
    """The exact two-sided p-value of the count of hands whose value is in
    ``first``: a sum of binomials, one per context (each hand of a context
    lands there with that context's exact chance), and the p-value is the
    chance of every count no likelier than the one observed."""
    from scipy import stats  # imported where used: most processes never test

    law = np.ones(1)
    seen = 0
    for context, by_value in hist.counts.items():
        k = sum(by_value.values())
        q = min(1.0, sum(p for v, p in pmf(context).items() if v in first))
        law = np.convolve(law, stats.binom.pmf(np.arange(k + 1), k, q))
        seen += sum(c for v, c in by_value.items() if v in first)
    return float(min(1.0, law[law <= law[seen] * (1 + 1e-7)].sum()))


def p_values(fits: Sequence[Fit]) -> None:
    """Fill every fit's p-value, vectorised over the report."""
    from scipy import stats  # imported where used: most processes never test

    for f in fits:
        if f.exact is not None:
            f.p_value = f.exact
    tested = [f for f in fits if f.statistic is not None and f.exact is None]
    if not tested:
        return
    chi = np.array([f.statistic for f in tested], dtype=float)
    df = np.array([f.df for f in tested], dtype=float)
    for f, p in zip(tested, stats.chi2.sf(chi, df), strict=True):
        f.p_value = float(p)


def adjust(p: Sequence[float]) -> list[float]:
    """Benjamini-Hochberg adjusted p-values."""
    from scipy import stats  # imported where used: most processes never test

    if not p:
        return []
    return [float(x) for x in stats.false_discovery_control(np.array(p, dtype=float))]


def proportion_ci(successes: int, n: int) -> tuple[float, float]:
    """Wilson 95% interval of a proportion (descriptive figures)."""
    from scipy import stats  # imported where used: most processes never test

    if n == 0:
        return (0.0, 1.0)
    ci = stats.binomtest(successes, n).proportion_ci(0.95, method="wilson")
    return (float(ci.low), float(ci.high))


def expected_of(histograms: Mapping[str, Histogram]) -> dict[str, dict[int, float]]:
    return {g: expected_counts(h) for g, h in histograms.items()}


def hands_to_detect(
    fair: Sequence[float],
    biased: Sequence[float],
    tests: int,
    alpha: float = ALPHA,
    power: float = 0.8,
) -> int:
    """Hands needed to flag a bias with probability ``power``.

    ``fair`` and ``biased`` are a feature's distributions over the same
    (already pooled) categories. The report flags a row when its
    Benjamini-Hochberg adjusted p-value is below ``alpha``; with one biased
    row among ``tests`` that threshold is ``alpha / tests`` on the raw
    p-value (the worst case), and the chi-square statistic of ``n`` biased
    hands follows a noncentral chi-square with noncentrality
    ``n * sum((b - f)**2 / f)`` (``scipy.stats.ncx2``).
    """
    from scipy import stats  # imported where used: most processes never test

    f = np.asarray(fair, dtype=float)
    b = np.asarray(biased, dtype=float)
    w2 = float(((b - f) ** 2 / f).sum())
    df = len(f) - 1
    critical = float(stats.chi2.isf(alpha / tests, df))
    lo, hi = 1, 2
    while float(stats.ncx2.sf(critical, df, hi * w2)) < power:
        lo, hi = hi, hi * 2
    while lo < hi:
        mid = (lo + hi) // 2
        if float(stats.ncx2.sf(critical, df, mid * w2)) >= power:
            hi = mid
        else:
            lo = mid + 1
    return lo
