"""Hazari Lite benchmarks: evaluation speed, the auto-arranger's speed and strength.

Run ``.venv/bin/python -m bench.bench_hazari`` (well under a minute) or with
``--quick`` (a few seconds). Figures only; nothing is asserted here. Times
are CPU time of this process (``time.process_time``), so that other work on
a shared machine does not inflate them.

- *Evaluations*: three-card keys per second through the public
  :func:`~service.engines.hazari.combos.key` (card strings) and through the
  integer table the arranger uses; four-card keys likewise.
- *Arranger*: time per 13-card hand (mean, median, 99th percentile, worst).
- *Strength*: one auto-arranged seat against three seats that choose a
  uniformly random valid arrangement, over fixed-seed deals (the seat and
  the dealer rotate); its share of the 360 points of each deal (a random
  arranger gets 25%). The same against three greedy arrangers (best three
  cards first) and against three copies of itself, for context.
- *Full deals*: complete deals through the engine (shuffle from the
  ``Shuffler``, four auto-arranged moves, the rounds resolved) per second.

``--field`` recomputes the field model of the arranger
(:data:`~service.engines.hazari.arrange.FIELD`) and prints it: starting from
the greedy arranger's groups, arrange fixed-seed hands against the field,
measure the keys of the groups played in each round, and repeat.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable, Sequence
from itertools import combinations

from bench.stats import percentile, standard_error
from service.engines.hazari.arrange import DEFAULT, Arranger, greedy_indices, random_indices
from service.engines.hazari.combos import CARD_STRS, POINTS, key, key3, key4

IndexArranger = Callable[[list[int], random.Random], list[list[int]]]


def group_keys(groups: Sequence[Sequence[int]]) -> list[int]:
    return [key3(*g) if len(g) == 3 else key4(*g) for g in groups]


def deal_points(arrangements: Sequence[Sequence[Sequence[int]]], dealer: int) -> list[int]:
    """The points each seat collects; ties go to the group laid later."""
    points = [0, 0, 0, 0]
    leader = (dealer + 1) % 4
    for r in range(4):
        best, winner, pot = -1, leader, 0
        for offset in range(4):
            seat = (leader + offset) % 4
            group = arrangements[seat][r]
            k = key3(*group) if r < 3 else key4(*group)
            pot += sum(POINTS[c] for c in group)
            if k >= best:
                best, winner = k, seat
        points[winner] += pot
        leader = winner
    return points


def share(
    mine: IndexArranger, others: IndexArranger, deals: int, seed: int
) -> tuple[float, float, list[float]]:
    """(share of points, its standard error, seconds per hand for ``mine``)."""
    rng = random.Random(seed)
    shares: list[float] = []
    times: list[float] = []
    for d in range(deals):
        deck = list(range(52))
        rng.shuffle(deck)
        me, dealer = d % 4, (d // 4) % 4
        arrangements = []
        for seat in range(4):
            hand = deck[seat * 13 : seat * 13 + 13]
            if seat == me:
                t0 = time.process_time()
                arrangements.append(mine(hand, rng))
                times.append(time.process_time() - t0)
            else:
                arrangements.append(others(hand, rng))
        shares.append(deal_points(arrangements, dealer)[me] / 360)
    mean = statistics.fmean(shares)
    return mean, standard_error(shares), times


def bench_evaluations(n: int) -> None:
    rng = random.Random(1)
    triples = [rng.sample(range(52), 3) for _ in range(n)]
    as_strs = [[CARD_STRS[c] for c in t] for t in triples]
    t0 = time.process_time()
    for s in as_strs:
        key(s)
    public = n / (time.process_time() - t0)
    t0 = time.process_time()
    for a, b, c in triples:
        key3(a, b, c)
    table = n / (time.process_time() - t0)
    quads = [rng.sample(range(52), 4) for _ in range(n)]
    t0 = time.process_time()
    for a, b, c, d in quads:
        key4(a, b, c, d)
    four = n / (time.process_time() - t0)
    t0 = time.process_time()
    count = sum(1 for t in combinations(range(52), 3) if key3(*t))
    every = time.process_time() - t0
    print(
        f"evaluations: key(3 strings) {public:,.0f}/s, key3(indices) {table:,.0f}/s, "
        f"key4(indices) {four:,.0f}/s; all {count:,} three-card sets in {every * 1000:.0f} ms"
    )


def bench_arranger(arranger: Arranger, deals: int) -> None:
    def auto(hand: list[int], rng: random.Random) -> list[list[int]]:
        return arranger.arrange_indices(hand)

    def rand(hand: list[int], rng: random.Random) -> list[list[int]]:
        return random_indices(hand, rng)

    def greedy(hand: list[int], rng: random.Random) -> list[list[int]]:
        return greedy_indices(hand)

    mean, err, times = share(auto, rand, deals, seed=2024)
    ms = sorted(t * 1000 for t in times)
    print(
        f"arranger: {statistics.fmean(ms):.2f} ms/hand mean, {percentile(ms, 0.5):.2f} median, "
        f"{percentile(ms, 0.99):.2f} p99, {ms[-1]:.2f} worst ({len(ms)} hands)"
    )
    print(f"strength vs 3 random arrangers: {mean:.1%} of the points (±{err:.1%}, {deals} deals)")
    fewer = max(deals // 2, 50)
    mean, err, _ = share(auto, greedy, fewer, seed=2025)
    print(f"strength vs 3 greedy arrangers: {mean:.1%} (±{err:.1%}, {fewer} deals)")
    mean, err, _ = share(auto, auto, fewer, seed=2026)
    print(f"strength vs 3 copies of itself: {mean:.1%} (±{err:.1%}, {fewer} deals)")
    mean, err, _ = share(greedy, rand, deals, seed=2024)
    print(f"baseline: greedy vs 3 random arrangers: {mean:.1%} (±{err:.1%})")


def bench_full_deals(deals: int) -> None:
    from service.engines.hazari import ENGINE
    from service.engines.shuffle import Shuffler

    shuffler = Shuffler(bytes(32), "bench", ("a", "b", "c", "d"))
    state = ENGINE.initial(ENGINE.parse_options({"target": 10_000}), 4)
    done = 0
    t0 = time.process_time()
    while done < deals:
        if ENGINE.is_over(state):
            state = ENGINE.initial(ENGINE.parse_options({"target": 10_000}), 4)
        state = ENGINE.fold(state, ENGINE.advance(state, shuffler))
        for seat in range(4):
            state = ENGINE.fold(state, ENGINE.decide(state, seat, ENGINE.bot_move(state, seat)))
        done += 1
    rate = deals / (time.process_time() - t0)
    print(f"full deals through the engine, auto-arranged: {rate:,.1f}/s ({deals} deals)")


def compute_field(rounds: int, hands: int) -> tuple[tuple[int, ...], ...]:
    def sample(arrange: Callable[[list[int]], list[list[int]]], seed: int) -> list[list[int]]:
        rng = random.Random(seed)
        keys: list[list[int]] = [[], [], [], []]
        for _ in range(hands):
            deck = list(range(52))
            rng.shuffle(deck)
            for r, k in enumerate(group_keys(arrange(deck[:13]))):
                keys[r].append(k)
        return [sorted(k) for k in keys]

    samples = sample(greedy_indices, seed=100)
    for i in range(rounds):
        samples = sample(Arranger(samples).arrange_indices, seed=101 + i)
        print(f"# iteration {i + 1}: medians " + ", ".join(hex(s[len(s) // 2]) for s in samples))
    return tuple(tuple(s[int((q + 0.5) * len(s) / 64)] for q in range(64)) for s in samples)


def print_field(field: tuple[tuple[int, ...], ...]) -> None:
    print("FIELD: Final[tuple[tuple[int, ...], ...]] = (")
    for row in field:
        print("    (")
        for start in range(0, len(row), 10):
            print("        " + " ".join(f"{k:#06x}," for k in row[start : start + 10]))
        print("    ),")
    print(")")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="a few seconds")
    parser.add_argument("--field", action="store_true", help="recompute the arranger's field")
    parser.add_argument("--deals", type=int, help="deals for the strength figure")
    args = parser.parse_args(argv)
    if args.field:
        print_field(compute_field(rounds=3, hands=300 if args.quick else 3000))
        return
    deals = args.deals or (200 if args.quick else 2000)
    bench_evaluations(20_000 if args.quick else 200_000)
    bench_arranger(DEFAULT, deals)
    bench_full_deals(50 if args.quick else 500)


if __name__ == "__main__":
    main()
