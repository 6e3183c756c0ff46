"""Which grinders the fairness report catches, and from how many games: the
"Grinding" table of docs/fairness.md, measured.

Run ``.venv/bin/python -m bench.bench_grinding`` (about a minute; ``--runs``
sets the runs per line, 10 by default; ``--quick``: 3). It prints first the "hands to detect"
rows of the features added last (:func:`service.fairness.stats.hands_to_detect`
at 10, 100 and 1,000 tests), then the grinders. Each line is a grinder of the harness
in ``tests/fairness/grinding.py`` (a dishonest server that keeps, of several
candidate seeds per game, the one whose deals or outcome favour what it
chases; every document still verifies) at a number of games: how many of the
runs the report flags at all, and how many it flags by the row the grinder
moves. Figures only; ``tests/fairness/test_grinding.py`` holds the table's
key figures as tests.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from tests.fairness.grinding import caught, kings_caught, outcome_caught, outcome_law, shifted

Grinder = tuple[str, str, Callable[[int, int], tuple[bool, bool]], tuple[int, ...]]

GRINDERS: tuple[Grinder, ...] = (
    (
        "Murlan, best of 2 seeds against the one person at a table of bots (his jokers + 2s)",
        "people",
        lambda run, games: caught(run, games, 6, 2),
        (50, 100, 200),
    ),
    (
        "Murlan, best of 4 seeds, the same",
        "people",
        lambda run, games: caught(run, games, 6, 4),
        (25, 50),
    ),
    (
        "Murlan, best of 4 seeds for seat 0's kings",
        "rank_K",
        lambda run, games: kings_caught(run, games, 6, 4),
        (10, 25, 50),
    ),
    (
        "Murlan, all bots, best of 2 seeds for seat 0 winning",
        "bot_winner_seat",
        lambda run, games: outcome_caught(run, "murlan", games, 2),
        (100, 200, 300),
    ),
    (
        "Azi, all bots, best of 2 seeds for seat 0 on top",
        "bot_winner_seat",
        lambda run, games: outcome_caught(run, "azi", games, 2),
        (100, 200, 300),
    ),
    (
        "Murlan and Azi, all bots, one seed per game (honest)",
        "nothing",
        lambda run, games: outcome_caught(900 + run, "murlan" if run % 2 else "azi", games, 1),
        (300,),
    ),
)


def best_of_two(law: list[float]) -> list[float]:
    """The law of the winning seat when a grinder keeps, of two seeds, one
    whose game seat 0 wins (each seed's winner a draw from ``law``)."""
    p0 = law[0]
    won = 1 - (1 - p0) ** 2
    return [won, *(p * (1 - won) / (1 - p0) for p in law[1:])]


DETECT: tuple[tuple[str, Callable[[], tuple[list[float], list[float]]]], ...] = (
    (
        "Azi: a seat's trump strength one step higher one deal in four (a King shows trump)",
        lambda: shifted("trumps:26:3:K:0:0", 0.25, True),
    ),
    (
        "Azi: a seat holds one more 7 one deal in four",
        lambda: shifted("hg:26:3:3:0", 0.25, True),
    ),
    (
        "Hazari: a seat's arranger total 10 points higher one deal in four",
        lambda: shifted("sim:hazari_total:13", 0.25, True),
    ),
    (
        "Murlan, all bots: seat 0's wins, best of 2 seeds per game (games)",
        lambda: _outcome("murlan"),
    ),
    ("Azi, all bots: seat 0 on top, best of 2 seeds per game (games)", lambda: _outcome("azi")),
)


def _outcome(game: str) -> tuple[list[float], list[float]]:
    _, law = outcome_law(game)
    fair = [float(p) for p in law if p > 0]
    return fair, best_of_two(fair)


def detect() -> None:
    from service.fairness.stats import hands_to_detect

    print("| bias | hands (10 tests) | (100 tests) | (1,000 tests) |")
    print("|---|---|---|---|")
    for name, make in DETECT:
        fair, biased = make()
        need = [hands_to_detect(fair, biased, tests=m) for m in (10, 100, 1000)]
        print(f"| {name} | " + " | ".join(f"{n:,}" for n in need) + " |")
    print()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--quick", action="store_true", help="3 runs a line")
    args = parser.parse_args(argv)
    if args.quick:
        args.runs = 3
    start = time.perf_counter()
    detect()
    print("| grinder | games | flagged anything | by the row |")
    print("|---|---|---|---|")
    for name, row, run_one, counts in GRINDERS:
        for games in counts:
            results = [run_one(run, games) for run in range(args.runs)]
            anything = sum(flagged for flagged, _ in results)
            by_row = sum(by for _, by in results)
            print(f"| {name} | {games} | {anything} of {args.runs} | {by_row} (`{row}`) |")
    print(f"({time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    main()
