"""The exact expected distribution of every feature, from a context string.

A context names the distribution and its parameters, so the expectation of
any observation is a pure function of it:

``hg:M:K:n:o``
    ``o`` plus a hypergeometric count: how many of ``K`` marked cards a hand of
    ``n`` drawn from ``M`` holds (``scipy.stats.hypergeom``). Jokers, 2s, aces,
    the 3 of spades, trumps, the six of trumps.
``u:k``
    Uniform over ``0 … k-1`` (the rank of Azi's trump card: 9 ranks, each with
    one card per suit in every deck).
``quads:n:j`` / ``troys:n:j`` / ``pairs:n:j``
    How many ranks a hand of ``n`` from 13 ranks of four (plus ``j`` jokers)
    holds exactly 4, at least 3, exactly 2 times: exact enumeration over rank
    counts (a generating function, integer arithmetic).
``runs:n:j`` / ``straight:n:j``
    How many runs of three consecutive ranks (A-2-3 … Q-K-A) are all present,
    and the longest run of consecutive ranks: exact enumeration over the
    8,192 patterns of present ranks, each weighted by the number of hands
    that show exactly that pattern.
``colorruns:n``
    How many three-card runs of one suit a hand of ``n`` from 52 holds: the
    8,192 patterns of each suit enumerated, the four suits combined exactly.
``trumps:M:n:r:h:o``
    Azi's trump strength: ``o`` plus the summed strength of the trumps a hand of
    ``n`` drawn from ``M`` holds, once the trump card (of rank ``r``) is known;
    the eight trumps left weigh 1 (the 6) to 9 (the Ace), the six 10 when ``h``
    is 1 (it stands above the Ace). Exact enumeration over the trumps held.
``sim:outcome:KEY:seat`` / ``sim:outcome:KEY:position``
    Who wins a game at a table of bots (its seat, its position from the first
    dealer; the value equal to the seat count is a tie): simulated by playing
    games of bots on fresh seeds (:mod:`.outcomes`, ``data/outcomes.json``).
``sim:hazari_best:13`` / ``sim:hazari_total:13``
    The type of the auto-arranger's first group of a Hazari hand, and its
    total (expected card points, in steps of 10). No
    practical closed form: the distribution comes from a documented
    simulation with the published shuffle (:data:`SIMULATED`), with its
    standard error.

Every exact distribution sums to one in rational arithmetic; they are
cached, and the simulated table is a constant, so nothing heavy runs at
request time.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Final

from .features import (
    LONGEST_CAP,
    RANK_ORDER,
    WINDOWS_CAP,
    longest_run,
    trump_weights,
    windows,
)

RANKS13: Final = "A23456789TJQK"
DATA: Final = Path(__file__).resolve().parent / "data"


def _load_simulated() -> dict[str, dict[str, object]]:
    return dict(json.loads((DATA / "simulated.json").read_text(encoding="utf-8")))


SIMULATED: Final = _load_simulated()
"""Simulated distributions (see ``data/simulated.json`` and :mod:`.simulate`)."""


class UnknownContext(ValueError):
    """A context string no expectation is defined for."""


@cache
def pmf(context: str) -> dict[int, float]:
    """The expected distribution of a value observed in ``context``."""
    kind, *args = context.split(":")
    if kind == "hg":
        from scipy import stats  # imported where used: most processes never test

        total, marked, drawn, offset = (int(a) for a in args)
        dist = stats.hypergeom(total, marked, drawn)
        return {k + offset: float(dist.pmf(k)) for k in range(min(marked, drawn) + 1)}
    if kind == "u":
        k = int(args[0])
        return {v: 1.0 / k for v in range(k)}
    if kind in ("quads", "troys", "pairs"):
        n, jokers = int(args[0]), int(args[1])
        counted = {"quads": {4}, "troys": {3, 4}, "pairs": {2}}[kind]
        return _as_float(_rank_count_pmf(n, jokers, frozenset(counted)))
    if kind in ("runs", "straight"):
        n, jokers = int(args[0]), int(args[1])
        return _as_float(_pattern_pmf(n, jokers, kind))
    if kind == "colorruns":
        return _as_float(_color_runs_pmf(int(args[0])))
    if kind == "trumps":
        size, hand, shown, high, shift = args
        return _as_float(
            _trump_strength_pmf(int(size), int(hand), shown, bool(int(high)), int(shift))
        )
    if kind == "sim":
        return simulated_pmf(context)
    raise UnknownContext(context)


def mean_var(context: str) -> tuple[float, float]:
    dist = pmf(context)
    mean = sum(v * p for v, p in dist.items())
    return mean, sum((v - mean) ** 2 * p for v, p in dist.items())


def simulated_pmf(context: str) -> dict[int, float]:
    if context.startswith("sim:outcome:"):
        found = _outcome(context)
        return found[0]
    entry = SIMULATED.get(context)
    if entry is None:
        raise UnknownContext(context)
    counts = {int(k): int(v) for k, v in dict(entry["counts"]).items()}  # type: ignore[call-overload]
    total = sum(counts.values())
    return {k: v / total for k, v in sorted(counts.items())}


def _outcome(context: str) -> tuple[dict[int, float], int]:
    from .outcomes import outcome_pmf

    _, _, key, by = context.split(":")
    found = outcome_pmf(key, by)
    if found is None:
        raise UnknownContext(context)
    return found


def simulated_size(context: str) -> int | None:
    """How many hands (or games) a simulated distribution was counted from
    (``None`` when it is exact)."""
    if not context.startswith("sim:"):
        return None
    if context.startswith("sim:outcome:"):
        return _outcome(context)[1]
    entry = SIMULATED.get(context)
    if entry is None:
        raise UnknownContext(context)
    hands: int = int(str(entry["hands"]))
    return hands


def simulated_error(context: str) -> float | None:
    """The largest standard error of a simulated probability (``None`` when exact)."""
    n = simulated_size(context)
    if n is None:
        return None
    return max(math.sqrt(p * (1 - p) / n) for p in simulated_pmf(context).values())


def _as_float(dist: dict[int, Fraction]) -> dict[int, float]:
    assert sum(dist.values()) == 1, "an exact distribution must sum to one"
    return {k: float(v) for k, v in sorted(dist.items())}


@cache
def _rank_count_pmf(n: int, jokers: int, counted: frozenset[int]) -> dict[int, Fraction]:
    """Hands of ``n`` from 13 ranks × 4 + ``jokers``: how many ranks have a count in ``counted``."""
    ways: dict[tuple[int, int], int] = {(0, 0): 1}  # (cards, ranks counted) -> hands
    for _ in range(13):
        nxt: dict[tuple[int, int], int] = {}
        for (cards, hits), w in ways.items():
            for k in range(5):
                if cards + k > n:
                    break
                key = (cards + k, hits + (k in counted))
                nxt[key] = nxt.get(key, 0) + w * math.comb(4, k)
        ways = nxt
    total = math.comb(52 + jokers, n)
    out: dict[int, Fraction] = {}
    for (cards, hits), w in ways.items():
        j = n - cards
        if 0 <= j <= jokers:
            out[hits] = out.get(hits, Fraction(0)) + Fraction(w * math.comb(jokers, j), total)
    return out


def _present_ways(m: int, n: int, jokers: int) -> int:
    """Hands of ``n`` cards in which exactly a given set of ``m`` ranks is present."""
    # coefficient of x^n in ((1+x)^4 - 1)^m (1+x)^jokers, by inclusion-exclusion
    return sum(
        (-1) ** (m - i) * math.comb(m, i) * math.comb(4 * i + jokers, n) for i in range(m + 1)
    )


@cache
def _pattern_pmf(n: int, jokers: int, kind: str) -> dict[int, Fraction]:
    total = math.comb(52 + jokers, n)
    ways = [_present_ways(m, n, jokers) for m in range(14)]
    out: dict[int, Fraction] = {}
    for mask in range(1 << 13):
        present = {RANKS13[i] for i in range(13) if mask >> i & 1}
        w = ways[len(present)]
        if not w:
            continue
        if kind == "runs":
            value = min(windows(present), WINDOWS_CAP)
        else:
            value = min(longest_run(present), LONGEST_CAP)
        out[value] = out.get(value, Fraction(0)) + Fraction(w, total)
    return out


@cache
def _trump_strength_pmf(
    rest: int, drawn: int, shown: str, six_high: bool, offset: int
) -> dict[int, Fraction]:
    """Hands of ``drawn`` of ``rest`` cards, eight of them trumps of known
    strength: how much strength they hold (a generating function over the trumps)."""
    weights = trump_weights(shown, six_high)
    ways: dict[tuple[int, int], int] = {(0, 0): 1}  # (trumps held, strength) -> hands
    for w in weights:
        nxt = dict(ways)
        for (k, total), v in ways.items():
            key = (k + 1, total + w)
            nxt[key] = nxt.get(key, 0) + v
        ways = nxt
    plain = rest - len(weights)
    out: dict[int, Fraction] = {}
    hands = math.comb(rest, drawn)
    for (k, total), v in ways.items():
        if k <= drawn:
            out[offset + total] = out.get(offset + total, Fraction(0)) + Fraction(
                v * math.comb(plain, drawn - k), hands
            )
    return {value: p for value, p in sorted(out.items()) if p}


@cache
def _color_runs_pmf(n: int) -> dict[int, Fraction]:
    suit: dict[tuple[int, int], int] = {}  # (cards of the suit, runs) -> patterns
    for mask in range(1 << 13):
        present = {RANKS13[i] for i in range(13) if mask >> i & 1}
        key = (len(present), windows(present))
        suit[key] = suit.get(key, 0) + 1
    ways: dict[tuple[int, int], int] = {(0, 0): 1}
    for _ in range(4):
        nxt: dict[tuple[int, int], int] = {}
        for (cards, runs), w in ways.items():
            for (k, r), v in suit.items():
                if cards + k <= n:
                    key = (cards + k, min(runs + r, WINDOWS_CAP))
                    nxt[key] = nxt.get(key, 0) + w * v
        ways = nxt
    total = math.comb(52, n)
    return {r: Fraction(w, total) for (cards, r), w in sorted(ways.items()) if cards == n}


assert RANK_ORDER[0] == RANK_ORDER[-1] == "A"
