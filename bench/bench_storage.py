"""Redis bytes per table, measured on a real ``redis-server``, for sizing
``maxmemory`` (docs/operations.md, "Sizing Redis").

Everything runs on a ``redis-server`` of its own (no persistence, no limit)
through the service itself, with the in-process worker playing the bots:

1. **unjoined**: tables opened, nobody seated; **waiting**: one seat taken;
2. the retention pass past ``CARDROOM_UNJOINED_TTL_S``: what is left of them
   (their expiry marks, for a day);
3. **finished**: bot games of each kind played to their end (events, snapshot,
   cached answers, fairness notes, index entry: everything they leave);
4. the retention pass with ``CARDROOM_ARCHIVE_AFTER_S=0``: what is left of
   them in Redis (their index entry) and the archive file's bytes.

Each figure is ``INFO memory``'s ``used_memory`` before and after, divided by
the number of tables, after a warm-up round (Lua scripts, first keys); the
``MEMORY USAGE`` of the game's own keys is printed beside it.

    python -m bench.bench_storage [--quick] [--tables N] [--games N]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import redis

from bench.bench_retention import own_redis
from service.config import Settings, load_settings
from service.demo import DEMO_GAMES, play_bot_game
from service.engines import table
from service.games import GameService
from service.idempotency import seat_scoped_key
from service.retention import _drop_index_entry, game_keys, run_pass
from service.runtime import Runtime
from service.store import keys
from service.store.fairness import GAMES as FAIRNESS_GAMES

KIB = 1024
FAR_MS = 10**15
"""A 'now' past every TTL: the retention pass expires or archives all it may."""


def used(client: redis.Redis) -> int:
    return int(client.info("memory")["used_memory"])


def keys_bytes(client: redis.Redis, game_ids: list[str]) -> float:
    """Mean ``MEMORY USAGE`` of the games' own keys."""
    total = 0
    for game_id in game_ids:
        for name in game_keys(game_id):
            total += int(client.memory_usage(name, samples=0) or 0)
    return total / max(1, len(game_ids))


def per_table(
    client: redis.Redis, count: int, make: Callable[[], str], drain: Callable[[], int]
) -> tuple[float, list[str]]:
    """Mean ``used_memory`` growth per table ``make`` opens, once their follow-ups
    have run as the workers would run them, and their ids."""
    before = used(client)
    made = [make() for _ in range(count)]
    while drain():
        pass
    return (used(client) - before) / count, made


def unjoined(
    service: GameService, raw: redis.Redis, drain: Callable[[], int], settings: Settings, n: int
) -> None:
    def empty() -> str:
        return service.create_game("murlan").game_id

    def waiting() -> str:
        game_id = service.create_game("murlan").game_id
        service.take_seat(game_id, "ann", None)
        return game_id

    for name, make in (("unjoined", empty), ("waiting (1 seat)", waiting)):
        make()  # warm-up: scripts and first keys
        drain()
        start = used(raw)
        size, ids = per_table(raw, n, make, drain)
        key_size = keys_bytes(raw, ids)
        report = run_pass(service.store, settings, now_ms=FAR_MS)
        left = (used(raw) - start) / n
        mark = int(raw.memory_usage(keys.expired(ids[0]), samples=0) or 0)
        print(
            f"{name:18} {n:>5} tables  {size / KIB:6.2f} KiB each (keys {key_size / KIB:.2f})"
            f"  after expiry: {left:4.0f} B each, the mark {mark} B ({len(report.expired)} expired)"
        )
    print(
        f"index entry (stays when a game is archived): {index_entry(service, raw, drain, n):.0f} B"
    )


def index_entry(service: GameService, raw: redis.Redis, drain: Callable[[], int], n: int) -> float:
    """``used_memory`` per game of the games index alone: tables opened, then
    their own keys deleted (what an archived game leaves)."""
    start = used(raw)
    ids = [service.create_game("murlan").game_id for _ in range(n)]
    while drain():
        pass
    for game_id in ids:
        raw.delete(*game_keys(game_id))
    size = (used(raw) - start) / n
    for game_id in ids:
        _drop_index_entry(service.store, game_id)
    return size


def finished(
    runtime: Runtime, service: GameService, raw: redis.Redis, drain: Callable[[], int], games: int
) -> None:
    archive = Path(tempfile.mkdtemp(prefix="cardroom-bench-archive-"))
    settings = load_settings(archive_url=str(archive), archive_after_s=0, unjoined_ttl_s=60)
    try:
        for game, options, seats in DEMO_GAMES:
            play_bot_game(runtime, game, options, seats, drain)  # warm-up
            run_pass(service.store, settings)
            before = used(raw)
            played: list[tuple[Any, list[Any]]] = [
                play_bot_game(runtime, game, options, seats, drain) for _ in range(games)
            ]
            size = (used(raw) - before) / games
            ids = [state.game_id for state, _ in played]
            key_size = keys_bytes(raw, ids)
            run_pass(service.store, settings)
            left = (used(raw) - before) / games
            files = statistics.mean((archive / f"{g}.jsonl").stat().st_size for g in ids)
            events = statistics.mean(len(stored) for _, stored in played)
            print(
                f"{game:8} {games:>3} games {events:6.0f} events  {size / KIB:6.1f} KiB each "
                f"(keys {key_size / KIB:.1f})  archived: {left:5.0f} B left in Redis, "
                f"{files / KIB:.1f} KiB on disk"
            )
        counted = int(raw.scard(FAIRNESS_GAMES)) or 1
        print(
            f"fairness report's set of counted games: "
            f"{int(raw.memory_usage(FAIRNESS_GAMES, samples=0) or 0) / counted:.0f} B per game"
        )
    finally:
        shutil.rmtree(archive, ignore_errors=True)


def keyed_moves(service: GameService, raw: redis.Redis, drain: Callable[[], int], n: int) -> None:
    """``MEMORY USAGE`` of the record a move with an ``idempotency_key`` leaves
    (as every move of the web table does), kept CARDROOM_IDEMPOTENCY_TTL_S."""
    game_id = service.create_game("murlan").game_id
    for i in range(4):
        service.take_seat(game_id, f"p{i}", None)
    sizes = []
    for i in range(n):
        drain()
        state = service.load(game_id)
        seat = table.view(state, None)["to_act"][0]
        move = table.view(state, seat)["legal_moves"][0]
        service.submit_move(game_id, seat, move, idempotency_key=f"key-{i}")
        stored = keys.idem(game_id, seat_scoped_key(seat, f"key-{i}"))
        sizes.append(int(raw.memory_usage(stored, samples=0) or 0))
    print(f"idempotency record of a move: {statistics.mean(sizes):.0f} B ({n} Murlan moves)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer tables and games")
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--games", type=int, default=5)
    args = parser.parse_args()
    if shutil.which("redis-server") is None:
        raise SystemExit("bench_storage needs redis-server")
    tables, games = (200, 2) if args.quick else (args.tables, args.games)
    from workers.context import install
    from workers.embedded import EmbeddedWorker

    with tempfile.TemporaryDirectory() as directory:
        proc, raw = own_redis(directory)
        try:
            url = f"redis://127.0.0.1:{raw.connection_pool.connection_kwargs['port']}/0"
            runtime = Runtime.from_settings(load_settings(redis_url=url, bot_delay_s=0))
            worker = EmbeddedWorker(runtime)
            install(runtime)
            service = runtime.service()
            print(f"redis-server {raw.info('server')['redis_version']}, used_memory deltas")
            unjoined(service, raw, worker.drain, load_settings(), tables)
            keyed_moves(service, raw, worker.drain, 40)
            finished(runtime, service, raw, worker.drain, games)
        finally:
            proc.terminate()
            proc.wait(10)


if __name__ == "__main__":
    main()
