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


def outcome_law(game: str) -> tuple[str, np.ndarray]:
    """The committed simulated law of the winning seat at a table of bots of
    ``game`` (default options), and its context."""
    from service.fairness import outcomes

    key = next(k for k, v in outcomes.table().items() if v["game"] == game)
    found = outcomes.outcome_pmf(key, "seat")
    assert found is not None
    law = np.array([found[0][v] for v in sorted(found[0])])
    return f"sim:outcome:{key}:seat", law / law.sum()


def outcome_counts(game: str, winners: np.ndarray) -> dict[str, int]:
    context, law = outcome_law(game)
    table = "azi/27/3" if game == "azi" else game
    return {
        f"{table}|bot_winner_seat|all|{context}|{v}": int(c)
        for v, c in enumerate(np.bincount(winners, minlength=len(law)))
        if c
    }


def outcome_caught(seed: int, game: str, games: int, best_of: int) -> tuple[bool, bool]:
    """A grinder keeping, of ``best_of`` seeds per game of bots, one whose game
    seat 0 wins (every game of bots is decided by its seed: each seed's winner
    is a draw from the simulated law). Whether the report flags anything, and
    whether it flags the ``bot_winner_seat`` row (analysed among the 32
    marked-card rows of honest deals, as the report would)."""
    rng = np.random.default_rng(seed)
    _, law = outcome_law(game)
    cands = rng.choice(len(law), size=(games, best_of), p=law)
    pick = np.where((cands == 0).any(axis=1), 0, cands[:, 0])
    # among the rows of a report: the 32 marked-card rows of honest deals
    deals = 6 * games
    first = np.arange(deals) % 4
    honest = murlan_counts(
        rng.permuted(np.tile(np.arange(54, dtype=np.int16), (deals, 1)), axis=1), first
    )
    flagged = report.analyse({**honest, **outcome_counts(game, pick)}).flagged
    return bool(flagged), any(feature == "bot_winner_seat" for _, feature, _ in flagged)


def shifted(context: str, r: float, up: bool) -> tuple[list[float], list[float]]:
    """A feature's fair distribution and the one a dealer makes who moves a hand's
    value one up (or down) with chance ``r``; values under 1% pooled at the ends."""
    from service.fairness.expectations import pmf

    fair = pmf(context)
    values = sorted(fair)
    biased = dict.fromkeys(values, 0.0)
    for v in values:
        to = v + (1 if up else -1)
        moved = r if to in biased else 0.0
        biased[v] += fair[v] * (1 - moved)
        if moved:
            biased[to] += fair[v] * moved
    f, b = [fair[v] for v in values], [biased[v] for v in values]
    while f[-1] < 0.01:
        x, y = f.pop(), b.pop()
        f[-1], b[-1] = f[-1] + x, b[-1] + y
    while f[0] < 0.01:
        x, y = f.pop(0), b.pop(0)
        f[0], b[0] = f[0] + x, b[0] + y
    return f, b
