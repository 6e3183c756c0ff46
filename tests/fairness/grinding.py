"""A grinding dealer: a dishonest server that draws several candidate seeds for
each game and keeps the one whose deals favour what it chases.

Every document it makes still verifies (the seeds are honest draws; only the
choice among them is not), so only the fairness report can catch it. Deals
are drawn uniformly with numpy, as the published shuffle makes them; the
counting is :mod:`.honest`'s, the analysis the report's own.
"""

from __future__ import annotations

import numpy as np

from service.fairness import report

from .honest import MARKED, SIZES, murlan_counts

LOW = MARKED["jokers"] + MARKED["twos"]


def low_cards(positions: np.ndarray, first: np.ndarray, seat: np.ndarray) -> np.ndarray:
    """Jokers and 2s in ``seat``'s hand, per deal (``positions[..., d, card]``)."""
    place = positions[..., LOW] % 4
    target = (seat - first) % 4
    return (place == target[..., None]).sum(axis=-1)


def moving_target_games(
    rng: np.random.Generator, games: int, deals: int, best_of: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``games`` Murlan games of ``deals`` deals, each game's seed the best of
    ``best_of`` for starving one person of jokers and 2s; the person sits at a
    random seat of a table of bots. Returns every deal's card positions, the
    seat given its first card and the person's seat."""
    base = np.arange(54, dtype=np.int16)
    first = np.tile(np.arange(deals) % 4, games)
    person = np.repeat(rng.integers(0, 4, games), deals)
    cands = rng.permuted(np.broadcast_to(base, (best_of, games * deals, 54)), axis=-1)
    lows = low_cards(cands, first, person).reshape(best_of, games, deals).sum(axis=-1)
    keep = np.repeat(lows.argmin(axis=0), deals)
    chosen = cands[keep, np.arange(games * deals)]
    return chosen, first, person


def people_counts(positions: np.ndarray, first: np.ndarray, person: np.ndarray) -> dict[str, int]:
    """The report's counts, with the group ``people`` (the person's hand)."""
    counts = murlan_counts(positions, first)
    for feature, cards in MARKED.items():
        k = len(cards)
        place = positions[:, cards] % 4
        q = (person - first) % 4
        held = (place == q[:, None]).sum(axis=1)
        for size in set(SIZES):
            mine = held[np.array(SIZES)[q] == size]
            for value, c in enumerate(np.bincount(mine, minlength=k + 1)):
                if c:
                    counts[f"murlan|{feature}|people|hg:54:{k}:{size}:0|{value}"] = int(c)
    return counts


def caught(seed: int, games: int, deals: int, best_of: int) -> tuple[bool, bool]:
    """Whether the report flags anything, and whether it flags the ``people`` row."""
    positions, first, person = moving_target_games(
        np.random.default_rng(seed), games, deals, best_of
    )
    analysis = report.analyse(people_counts(positions, first, person))
    flagged = analysis.flagged
    return bool(flagged), any(group == "people" for _, _, group in flagged)


KINGS = [11, 24, 37, 50]


def kings_counts(positions: np.ndarray, first: np.ndarray) -> dict[str, int]:
    """The report's ``rank_K`` counts per seat and position (and the others')."""
    counts = murlan_counts(positions, first)
    place = positions[:, KINGS] % 4
    for q, n in enumerate(SIZES):
        held = (place == q).sum(axis=1)
        seat = (first + q) % 4
        for s in range(4):
            for value, c in enumerate(np.bincount(held[seat == s], minlength=5)):
                if c:
                    key = f"murlan|rank_K|seat:{s}|hg:54:4:{n}:0|{value}"
                    counts[key] = counts.get(key, 0) + int(c)
        for value, c in enumerate(np.bincount(held, minlength=5)):
            if c:
                counts[f"murlan|rank_K|pos:{q}|hg:54:4:{n}:0|{value}"] = int(c)
    return counts


def kings_caught(seed: int, games: int, deals: int, best_of: int) -> tuple[bool, bool]:
    """A grinder keeping the best of ``best_of`` seeds per game for seat 0's kings:
    whether the report flags anything, and whether it flags a ``rank_K`` row."""
    rng = np.random.default_rng(seed)
    first = np.tile(np.arange(deals) % 4, games)
    base = np.arange(54, dtype=np.int16)
    cands = rng.permuted(np.broadcast_to(base, (best_of, games * deals, 54)), axis=-1)
    place = cands[..., KINGS] % 4
    kings = (place == ((0 - first) % 4)[..., None]).sum(axis=-1)
    keep = np.repeat(kings.reshape(best_of, games, deals).sum(axis=-1).argmax(axis=0), deals)
    chosen = cands[keep, np.arange(games * deals)]
    flagged = report.analyse(kings_counts(chosen, first)).flagged
    return bool(flagged), any(feature == "rank_K" for _, feature, _ in flagged)
