"""bench/stats.py: the one percentile every benchmark prints, and the standard error."""

from __future__ import annotations

import math
import statistics

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bench.stats import percentile, standard_error

samples = st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=1)
fractions = st.floats(min_value=0.0, max_value=1.0)


def test_known_percentiles() -> None:
    values = [float(v) for v in range(1, 101)]  # 1..100
    assert percentile(values, 0.0) == 1.0
    assert percentile(values, 0.5) == 51.0  # index int(0.5 * 100): no interpolation
    assert percentile(values, 0.99) == 100.0
    assert percentile(values, 1.0) == 100.0
    assert percentile([3.0, 1.0, 2.0], 0.5) == 2.0  # sorted first
    assert percentile([5.0], 0.99) == 5.0
    assert percentile(range(10), 0.25) == 2


def test_no_values_is_nan() -> None:
    assert math.isnan(percentile([], 0.5))


@pytest.mark.parametrize("q", [-0.01, 1.01, 99.0])
def test_q_outside_zero_to_one_is_refused(q: float) -> None:
    with pytest.raises(ValueError, match="fraction"):
        percentile([1.0, 2.0], q)


@given(samples, fractions)
def test_within_min_and_max_and_one_of_the_values(values: list[float], q: float) -> None:
    p = percentile(values, q)
    assert min(values) <= p <= max(values)
    assert p in values


@given(samples, fractions, fractions)
def test_monotone_in_q(values: list[float], a: float, b: float) -> None:
    low, high = sorted((a, b))
    assert percentile(values, low) <= percentile(values, high)


@given(samples)
def test_ends_are_min_and_max(values: list[float]) -> None:
    assert percentile(values, 0.0) == min(values)
    assert percentile(values, 1.0) == max(values)


@given(samples, fractions)
def test_order_of_the_input_does_not_matter(values: list[float], q: float) -> None:
    assert percentile(values, q) == percentile(list(reversed(values)), q)


def test_standard_error() -> None:
    values = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]  # sample stdev sqrt(32 / 7)
    assert standard_error(values) == pytest.approx(math.sqrt(32 / 7) / math.sqrt(8))
    assert standard_error([1.0, 1.0, 1.0]) == 0.0
    assert standard_error(values) == statistics.stdev(values) / len(values) ** 0.5
