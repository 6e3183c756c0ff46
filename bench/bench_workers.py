"""Projection lag: from a move's append to the workers' snapshot covering it.

N bot games play at once on the real Redis, driven by M ``cardroom worker``
processes; samplers follow each game's stream (blocking reads) and time how
long each new event waits until the projection has folded it. Prints p50/p99
lag, events per second and the settings. Figures only; nothing is asserted.

    .venv/bin/python -m bench.bench_workers [--games N] [--workers M] [--quick]
"""

from __future__ import annotations

import argparse
import os
import statistics
import threading
import time
import uuid

import redis

from bench.stats import percentile
from service.config import load_settings
from service.devstack import Stack
from service.runtime import Runtime
from service.store import EventStore

MIX = (
    ("murlan", {}, None),
    ("hazari", {"target": 1000}, None),
    ("azi", {"buy_in": 200, "ante": 10, "min_bet": 10}, 4),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=6, help="games played at once (N)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (M)")
    parser.add_argument("--seconds", type=float, default=60, help="time budget")
    parser.add_argument("--url", default="redis://127.0.0.1:6379/9")
    parser.add_argument("--quick", action="store_true", help="3 games, 15 s")
    args = parser.parse_args()
    if args.quick:
        args.games, args.seconds = 3, 15.0
    client = redis.Redis.from_url(args.url)
    client.flushdb()
    queue = f"bench-{uuid.uuid4().hex[:6]}"
    env = {
        **os.environ,
        "CARDROOM_REDIS_URL": args.url,
        "CARDROOM_QUEUE_NAME": queue,
        "CARDROOM_BOT_DELAY_S": "0",
        "CARDROOM_LOG_LEVEL": "WARNING",
    }
    workers = Stack(env)
    for _ in range(args.workers):
        workers.start_worker()
    runtime = Runtime.from_settings(load_settings(redis_url=args.url, queue_name=queue))
    store = runtime.store
    service = runtime.service()
    lags: list[float] = []
    lock = threading.Lock()
    stop = time.monotonic() + args.seconds
    try:
        games = []
        for i in range(args.games):
            game, options, seats = MIX[i % len(MIX)]
            state = service.create_game(game, options, seats)
            games.append(state.game_id)
        started = time.monotonic()
        for game_id in games:
            for s in range(service.load(game_id).seat_count):
                service.take_seat(game_id, f"bot{s}", None, bot=True)

        def sample(game_id: str) -> None:
            sampler = EventStore(redis.Redis.from_url(args.url))
            seen = 0
            while time.monotonic() < stop:
                new = sampler.wait(game_id, seen, 500)
                if not new:
                    if service.load(game_id).over:
                        return
                    continue
                last = new[-1]
                seen = last.version
                while sampler.snapshot_version(game_id) < last.version:
                    if time.monotonic() > stop:
                        return
                    time.sleep(0.0005)  # a benchmark's probe, not a test's wait
                lag = time.time() - last.at_ms / 1000
                with lock:
                    lags.append(lag)

        threads = [threading.Thread(target=sample, args=(g,)) for g in games]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.monotonic() - started
        events = sum(store.version(g) for g in games)
        finished = sum(1 for g in games if service.load(g).over)
    finally:
        workers.stop()
        client.flushdb()
    print(f"games at once (N): {args.games}; worker processes (M): {args.workers}")
    print(f"games finished: {finished}/{len(games)} in {elapsed:.1f}s; events: {events}")
    print(f"events per second (all games): {events / elapsed:.0f}")
    if lags:
        print(
            f"projection lag: p50 {statistics.median(lags) * 1000:.1f} ms, "
            f"p99 {percentile(lags, 0.99) * 1000:.1f} ms over {len(lags)} samples"
        )


if __name__ == "__main__":
    main()
