"""Redis bytes per game, for sizing ``maxmemory`` (docs/operations.md).

Plays bot games of each kind to their end on the embedded stack, then copies
each game's keys (``by value) into a ``redis-server`` of its own and
reads ``MEMORY USAGE`` of every key: the bytes a finished game holds until it
is archived, and the bytes of a table nobody joined. Prints the figures.

    python -m bench.bench_retention [--quick]
"""

from __future__ import annotations

import argparse
import shutil
import socket
import statistics
import subprocess
import tempfile
import time
from typing import Any

import redis

from service.config import load_settings
from service.demo import DEMO_GAMES, play_bot_game
from service.games import GameService
from service.retention import answer_keys, game_keys
from service.runtime import Runtime
from service.store import EventStore


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def own_redis(directory: str) -> tuple[subprocess.Popen[bytes], redis.Redis]:
    port = free_port()
    proc = subprocess.Popen(
        ["redis-server", "--port", str(port), "--save", "", "--dir", directory],
        stdout=subprocess.DEVNULL,
    )
    client = redis.Redis(port=port)
    deadline = time.monotonic() + 10
    while True:
        try:
            client.ping()
            return proc, client
        except redis.ConnectionError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)  # starting


def copied_bytes(source: Any, target: redis.Redis, names: list[str]) -> tuple[int, int]:
    """Bytes (MEMORY USAGE) and number of ``names`` once copied into ``target``."""
    total = count = 0
    for name in names:
        kind = source.type(name)
        if kind == b"none":
            continue
        target.delete(name)
        if kind == b"stream":  # the fake Redis's DUMP is not Redis's: copy by value
            for entry_id, fields in source.xrange(name):
                target.xadd(name, fields, id=entry_id)
        elif kind == b"hash":
            target.hset(name, mapping=source.hgetall(name))
        elif kind == b"string":
            target.set(name, source.get(name))
        else:
            raise TypeError(f"{name}: unexpected {kind!r}")
        total += int(target.memory_usage(name, samples=0) or 0)
        count += 1
    return total, count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if shutil.which("redis-server") is None:
        raise SystemExit("bench_retention needs redis-server")
    per_kind = 2 if args.quick else 5
    from workers.context import install
    from workers.embedded import EmbeddedWorker

    runtime = Runtime.from_settings(load_settings(redis_url=None, bot_delay_s=0))
    worker = EmbeddedWorker(runtime)
    install(runtime)
    with tempfile.TemporaryDirectory() as directory:
        proc, target = own_redis(directory)
        try:
            print(
                f"{'game':8} {'games':>5} {'events':>8} {'KiB/game':>9} "
                f"{'of it answers':>13} {'keys/game':>9}"
            )
            for game, options, seats in DEMO_GAMES:
                sizes, events, nkeys, kept = [], [], [], []
                for _ in range(per_kind):
                    state, stored = play_bot_game(runtime, game, options, seats, worker.drain)
                    size, count = copied_bytes(runtime.redis, target, game_keys(state.game_id))
                    sizes.append(size)
                    kept.append(copied_bytes(runtime.redis, target, answer_keys(state.game_id))[0])
                    events.append(len(stored))
                    nkeys.append(count)
                print(
                    f"{game:8} {per_kind:>5} {statistics.mean(events):>8.0f} "
                    f"{statistics.mean(sizes) / 1024:>9.1f} {statistics.mean(kept) / 1024:>13.1f} "
                    f"{statistics.mean(nkeys):>9.1f}"
                )
            service = GameService(runtime, EventStore(runtime.redis))
            empty = [service.create_game("murlan").game_id for _ in range(50)]
            size = sum(copied_bytes(runtime.redis, target, game_keys(g))[0] for g in empty)
            print(f"unjoined table: {size / len(empty) / 1024:.2f} KiB (+ its index entry)")
        finally:
            proc.terminate()
            proc.wait(10)


if __name__ == "__main__":
    main()
