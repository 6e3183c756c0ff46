"""Many honest fairness reports, cheaply: Murlan deals drawn uniformly with
numpy (every deal of 54 cards equally likely, as the published shuffle makes
them; the shuffle's own uniformity is tested in tests/test_shuffle_stats.py),
counted into the report's own fields and analysed by the report itself.

Only the counting is vectorised here; the fits, the p-values and the
Benjamini-Hochberg correction are :func:`service.fairness.report.analyse`.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

MARKED: dict[str, list[int]] = {
    # cards by their index in the canonical 54-card order
    "jokers": [52, 53],
    "twos": [0, 13, 26, 39],
    "aces": [12, 25, 38, 51],
    "three_of_spades": [40],
}
SIZES = (14, 14, 13, 13)
"""Cards in hand by position from the seat that gets the first card."""


def murlan_counts(positions: np.ndarray, first: np.ndarray) -> dict[str, int]:
    """The report's counts of the marked-card features of these deals:
    ``positions[d, card]`` is the card's place in deal ``d``'s deck and
    ``first[d]`` the seat given the first card (cards go one at a time round
    the table)."""
    counts: dict[str, int] = {}
    for feature, cards in MARKED.items():
        k = len(cards)
        place = positions[:, cards] % 4  # position from the first, of each marked card
        held = np.stack([(place == q).sum(axis=1) for q in range(4)], axis=1)
        for q, n in enumerate(SIZES):
            context = f"hg:54:{k}:{n}:0"
            by_value = np.bincount(held[:, q], minlength=k + 1)
            for value, c in enumerate(by_value):
                if c:
                    counts[f"murlan|{feature}|pos:{q}|{context}|{value}"] = int(c)
            seat = (first + q) % 4
            by_seat = np.bincount(seat * (k + 1) + held[:, q], minlength=4 * (k + 1))
            for s in range(4):
                for value in range(k + 1):
                    c = int(by_seat[s * (k + 1) + value])
                    if c:
                        key = f"murlan|{feature}|seat:{s}|{context}|{value}"
                        counts[key] = counts.get(key, 0) + c
    return counts


def honest_murlan_reports(seed: int, reports: int, deals: int) -> Iterator[dict[str, int]]:
    """``reports`` sets of counts, each of ``deals`` honest Murlan deals."""
    rng = np.random.default_rng(seed)
    first = np.arange(deals) % 4
    base = np.tile(np.arange(54, dtype=np.int16), (deals, 1))
    for _ in range(reports):
        yield murlan_counts(rng.permuted(base, axis=1), first)
