"""Games audited per second per core: the check ``cardroom audit`` and
``cardroom verify`` make of each game (the commitment, every deal re-derived,
every move replayed through the engine, the result recomputed).

Plays bot games of each kind to their end on the embedded stack and keeps
their replay documents, then audits them: in this process (CPU time per
game), and across processes as ``cardroom audit --jobs`` spreads them (wall
time). The floor, measured in the same run on the same documents, is folding
each game's decoded events with no check at all (what any replay of the game
costs); the ratio says what the proof adds to it.

    python -m bench.bench_audit [--quick] [--games N] [--jobs N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from service.audit import check_document, default_jobs
from service.config import load_settings
from service.demo import DEMO_GAMES, play_bot_game
from service.engines import table
from service.replay import build_replay, events_from_replay
from service.runtime import Runtime
from workers.context import install
from workers.embedded import EmbeddedWorker

SMALL = {
    "hazari": {"target": 1000},
    "murlan": {},
    "azi": {"buy_in": 200, "ante": 10, "min_bet": 10},
}
RATIO_TARGET = 4.0
"""The audit may cost at most this many times a bare fold of the same events."""


def documents(games: int) -> list[dict[str, Any]]:
    runtime = Runtime.from_settings(load_settings(redis_url=None, bot_delay_s=0))
    install(runtime)
    worker = EmbeddedWorker(runtime)
    docs = []
    for game, _, seats in DEMO_GAMES:
        for _ in range(games):
            state, stored = play_bot_game(runtime, game, SMALL[game], seats, worker.drain)
            docs.append(build_replay(state, stored, None))
    return docs


def audit_all(docs: Sequence[dict[str, Any]]) -> int:
    ok = 0
    for doc in docs:
        ok += check_document(doc, "bench").ok
    return ok


def fold_all(docs: Sequence[dict[str, Any]]) -> int:
    total = 0
    for doc in docs:
        total += table.fold([e.event for e in events_from_replay(doc)]).version
    return total


def cpu(fn: Any, docs: Sequence[dict[str, Any]], rounds: int) -> float:
    """The median CPU seconds of ``fn(docs)`` over ``rounds``."""
    times = []
    for _ in range(rounds):
        start = time.process_time()
        fn(docs)
        times.append(time.process_time() - start)
    return statistics.median(times)


def parallel(docs: Sequence[dict[str, Any]], jobs: int) -> float:
    """Wall seconds to audit ``docs`` across ``jobs`` processes (pool started first)."""
    chunks = [list(docs[i::jobs]) for i in range(jobs)]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        list(pool.map(len, chunks))  # the processes are up
        start = time.perf_counter()
        assert sum(pool.map(audit_all, chunks)) == len(docs)
        return time.perf_counter() - start


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="2 games of each kind, 1 round")
    parser.add_argument("--games", type=int, default=6, help="bot games of each kind")
    parser.add_argument("--jobs", type=int, default=default_jobs())
    args = parser.parse_args(argv)
    games = 2 if args.quick else args.games
    rounds = 1 if args.quick else 5
    docs = documents(games)
    assert audit_all(docs) == len(docs), "a bot game failed its audit"
    events = sum(len(d["events"]) for d in docs)
    deals = sum(len(d["deals"]) for d in docs)
    audit_s = cpu(audit_all, docs, rounds)
    fold_s = cpu(fold_all, docs, rounds)
    wall_one = parallel(docs, 1)
    wall = parallel(docs, args.jobs)
    per_core = len(docs) / audit_s
    load = os.getloadavg()[0]
    print(f"{len(docs)} games ({games} of each kind): {deals} deals, {events} events")
    for kind in SMALL:
        mine = [d for d in docs if d["game"] == kind]
        kind_s = cpu(audit_all, mine, rounds)
        print(
            f"  {kind}: {len(mine) / kind_s:.1f} games/s per core, "
            f"{1000 * kind_s / len(mine):.1f} ms a game"
        )
    print(
        f"audit, one process: {per_core:.1f} games/s per core "
        f"({1e6 * audit_s / events:.0f} µs an event)"
    )
    print(f"floor, the bare fold: {len(docs) / fold_s:.1f} games/s per core")
    print(f"in 1 worker process: {len(docs) / wall_one:.1f} games/s (documents sent to it)")
    print(
        f"across {args.jobs} processes: {len(docs) / wall:.1f} games/s "
        f"({len(docs) / wall / args.jobs:.1f} per process, {wall_one / wall:.2f}x one), "
        f"load average {load:.2f}"
    )
    ratio = audit_s / fold_s
    verdict = "met" if ratio <= RATIO_TARGET else "NOT met"
    print(f"target audit / fold <= {RATIO_TARGET}: {ratio:.2f} ({verdict})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
