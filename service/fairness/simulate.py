"""The documented simulations behind ``data/simulated.json``.

Where no closed form is practical (the combination the auto-arranger leads
with in a Hazari hand, and the arranger's total), the expected distribution
is counted over many deals made with the published shuffle,
``cardroom-shuffle-v1``, from a fixed seed, so anyone can rerun it and get
the very same counts::

    python -m service.fairness.simulate --deals 62500

Each deal gives four hands; the standard error of a probability ``p``
estimated from ``N`` hands is ``sqrt(p (1 - p) / N)`` (the hands of one deal
are not independent, which the report's stated error ignores; the effect is
below the third significant digit here).
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections import Counter
from pathlib import Path

from service.engines.shuffle import Shuffler

from .features import TOTAL_STEP, arranger_strength

SEED_TEXT = "cardroom fairness simulation v1"
DATA = Path(__file__).resolve().parent / "data" / "simulated.json"


def simulate_hazari(deals: int, seed_text: str = SEED_TEXT) -> tuple[Counter[int], Counter[int]]:
    """The arranger's first group's type and its total, over ``deals`` deals of
    the published shuffle (four hands each)."""
    shuffler = Shuffler(hashlib.sha256(seed_text.encode()).digest(), "fairness-sim", ("sim",))
    best: Counter[int] = Counter()
    totals: Counter[int] = Counter()
    for d in range(deals):
        deck = [str(c) for c in shuffler.deal(d, 52)[0]]
        for seat in range(4):
            first, total = arranger_strength(deck[seat::4])
            best[first] += 1
            totals[total] += 1
    return best, totals


def simulate_hazari_best(deals: int, seed_text: str = SEED_TEXT) -> Counter[int]:
    return simulate_hazari(deals, seed_text)[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--deals", type=int, default=62_500)
    args = parser.parse_args(argv)
    counts, totals = simulate_hazari(args.deals)
    method = (
        f"cardroom-shuffle-v1, server seed sha256({SEED_TEXT!r}), "
        "game id 'fairness-sim', client seed 'sim', deals 0..N-1, 4 hands each"
    )
    doc = {
        "sim:hazari_best:13": {
            "what": "type of the auto-arranger's first group of a 13-card Hazari hand "
            "(1 indi, 2 pair, 3 color, 4 run, 5 color run, 6 troy)",
            "method": method,
            "deals": args.deals,
            "hands": 4 * args.deals,
            "counts": {str(k): v for k, v in sorted(counts.items())},
        },
        "sim:hazari_total:13": {
            "what": "the auto-arranger's total of a 13-card Hazari hand: the expected card "
            f"points of its arrangement under its own model, in steps of {TOTAL_STEP}",
            "method": method,
            "deals": args.deals,
            "hands": 4 * args.deals,
            "counts": {str(k): v for k, v in sorted(totals.items())},
        },
    }
    DATA.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(doc, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
