"""The statistics the benchmarks print: one percentile, one standard error.

Every bench reports its percentiles through :func:`percentile`, so a p99 means
the same thing in every figure of bench/README.md.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable


def percentile(values: Iterable[float], q: float) -> float:
    """The value at fraction ``q`` (0 to 1: 0.99 is the p99) of ``values`` in order.

    No interpolation: the element at index ``int(q * n)`` of the sorted values,
    the last for ``q`` = 1; NaN when there are none.
    """
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"q is a fraction from 0 to 1, not {q}")
    ordered = sorted(values)
    if not ordered:
        return math.nan
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def standard_error(values: list[float]) -> float:
    """The standard error of the mean of ``values`` (sample standard deviation over root n)."""
    return float(statistics.stdev(values) / len(values) ** 0.5)
