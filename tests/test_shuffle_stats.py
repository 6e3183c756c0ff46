"""Statistical tests of the shuffle, at 99% confidence with fixed seeds.

Run alone with ``pytest -m stats``.
"""

from __future__ import annotations

import math

import pytest

from service.engines.cards import canonical_deck
from service.engines.shuffle import DealStream

pytestmark = pytest.mark.stats

Z_99 = 2.326347874  # one-sided 99% point of the standard normal


def chi2_critical_99(df: int) -> float:
    """Wilson-Hilferty approximation of the 99% chi-square quantile (good for df > 30)."""
    return df * (1 - 2 / (9 * df) + Z_99 * math.sqrt(2 / (9 * df))) ** 3


def test_critical_value_approximation() -> None:
    # Published table values: chi2(0.99, 50) = 76.154, chi2(0.99, 100) = 135.807.
    assert chi2_critical_99(50) == pytest.approx(76.154, abs=0.1)
    assert chi2_critical_99(100) == pytest.approx(135.807, abs=0.1)


def test_card_by_position_chi_square() -> None:
    shuffles = 20_000
    cards = canonical_deck(52)
    index = {c: i for i, c in enumerate(cards)}
    counts = [[0] * 52 for _ in range(52)]
    seed = bytes(range(32))
    for n in range(shuffles):
        deck = DealStream.for_deal(seed, "stats", n, ("a", "b", "c", "d")).shuffle(cards)
        for pos, card in enumerate(deck):
            counts[pos][index[card]] += 1
    expected = shuffles / 52
    stat = sum((o - expected) ** 2 / expected for row in counts for o in row)
    assert stat < chi2_critical_99(51 * 51), f"chi-square {stat:.1f} over 2601 df"
    # And no single position is wildly off on its own.
    for pos, row in enumerate(counts):
        per_row = sum((o - expected) ** 2 / expected for o in row)
        assert per_row < chi2_critical_99(51) * 1.6, f"position {pos}: {per_row:.1f}"


def test_serial_pairs_of_draws() -> None:
    n, pairs = 10, 100_000
    stream = DealStream(bytes([7]) * 32, "serial")
    counts = [0] * (n * n)
    for _ in range(pairs):
        a, b = stream.draw(n), stream.draw(n)
        counts[a * n + b] += 1
    expected = pairs / (n * n)
    stat = sum((o - expected) ** 2 / expected for o in counts)
    assert stat < chi2_critical_99(n * n - 1), f"serial chi-square {stat:.1f}"


def test_no_modulo_bias_where_it_would_show() -> None:
    # With n = 3 * 2**30 a naive ``x % n`` makes values below 2**30 twice as
    # likely (probability 1/2 instead of 1/3). Rejection sampling must not.
    n, draws = 3 * 2**30, 40_000
    stream = DealStream(bytes([9]) * 32, "bias")
    low = sum(1 for _ in range(draws) if stream.draw(n) < 2**30)
    p = 1 / 3
    sd = math.sqrt(draws * p * (1 - p))
    assert abs(low - draws * p) < 2.576 * sd, f"{low} of {draws} below 2**30"
    # The naive reduction of the same bytes would be far outside that band.
    naive_stream = DealStream(bytes([9]) * 32, "bias")
    naive_low = sum(1 for _ in range(draws) if naive_stream._next4() % n < 2**30)
    assert abs(naive_low - draws * p) > 10 * sd
