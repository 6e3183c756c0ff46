"""Event store benchmarks against a real Redis: appends, replays, memory.

Run ``.venv/bin/python -m bench.bench_store`` (about half a minute) or with
``--quick`` (a few seconds); ``--url`` picks the Redis (default
``redis://127.0.0.1:6379/15``). Only this benchmark's own keys are written,
and they are deleted at the end. Figures only; nothing is asserted here.

- *Appends*: one event per ``EventStore.append`` (the Lua script: version
  check, ``XADD``, encoding included), next to a bare redis-py ``XADD`` of
  the same already-encoded entries, one round trip each. Target ratio ≥ 0.5.
- *Replay*: a whole game read back, decoded into engine events and folded
  into its state (``EventStore.read`` + ``fold``), next to a bare ``XRANGE``
  and ``json.loads`` of every entry of the same stream (inflating the few
  deflated ones first, which ``json.loads`` could not read). Target ≥ 0.5.
- *Memory*: ``MEMORY USAGE`` of each game's stream over its event count.
  Target ≤ 170 bytes per event.

The games are random whole games of every engine (random legal moves).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import redis

from schemas.codec import pack_event
from schemas.compact import expand
from service import keys
from service.engines import game as table
from service.engines.base import Event
from service.engines.registry import GAMES
from service.store import EventStore
from tests.support import new_game, play

SEATS = {"azi": 4}
RAW_KEY = "cardroom-bench:{raw}:events"


@dataclass
class Figures:
    store_appends: float = 0.0
    raw_appends: float = 0.0
    replay: float = 0.0
    bare_replay: float = 0.0
    bytes_per_event: float = 0.0
    events: int = 0


def random_games(game: str, count: int, seed: int) -> list[list[Event]]:
    games = []
    for i in range(count):
        rng = random.Random(seed + i)
        played = new_game(game, rng=rng, seats=SEATS.get(game), game_id=f"bench-{game}-{i}")
        games.append(play(played, rng).events)
    return games


def rate(count: int, run: Callable[[], None]) -> float:
    start = time.perf_counter()
    run()
    return count / (time.perf_counter() - start)


def bench_appends(
    r: redis.Redis, store: EventStore, games: list[list[Event]], round_no: int
) -> tuple[float, float]:
    ids = [f"bench-{round_no}-{i}" for i in range(len(games))]
    packed = [[pack_event(e) for e in events] for events in games]
    count = sum(len(events) for events in games)

    def through_store() -> None:
        for game_id, events in zip(ids, games, strict=True):
            for version, event in enumerate(events):
                store.append(game_id, [event], version)

    def raw_xadd() -> None:
        for entries in packed:
            for t, v, d in entries:
                r.xadd(RAW_KEY, {"t": t, "v": v, "d": d})

    r.delete(RAW_KEY, *(keys.events(g) for g in ids))
    raw = rate(count, raw_xadd)
    stored = rate(count, through_store)
    r.delete(RAW_KEY)
    return stored, raw


def bench_replay(
    r: redis.Redis, store: EventStore, game_ids: list[str], count: int
) -> tuple[float, float]:
    def replay() -> None:
        for game_id in game_ids:
            table.fold([s.event for s in EventStore(r).read(game_id)])

    def bare() -> None:
        for game_id in game_ids:
            rows: Any = r.xrange(keys.events(game_id))
            for _, fields in rows:
                data = fields[b"d"]
                json.loads(data if data[:1] == b"{" else expand(data))

    return rate(count, replay), rate(count, bare)


def bench_game(r: redis.Redis, game: str, n_games: int, rounds: int) -> Figures:
    games = random_games(game, n_games, seed=1000)
    count = sum(len(events) for events in games)
    store = EventStore(r)
    appends = [bench_appends(r, store, games, k) for k in range(rounds)]
    ids = [f"bench-{rounds - 1}-{i}" for i in range(n_games)]
    replays = [bench_replay(r, store, ids, count) for _ in range(rounds)]
    memory = sum(r.memory_usage(keys.events(g), samples=0) or 0 for g in ids)
    for k in range(rounds):
        r.delete(*(keys.events(f"bench-{k}-{i}") for i in range(n_games)))
    return Figures(
        store_appends=statistics.median(a for a, _ in appends),
        raw_appends=statistics.median(b for _, b in appends),
        replay=statistics.median(a for a, _ in replays),
        bare_replay=statistics.median(b for _, b in replays),
        bytes_per_event=memory / count,
        events=count,
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer games and rounds")
    parser.add_argument("--url", default="redis://127.0.0.1:6379/15", help="the Redis to use")
    args = parser.parse_args(argv)
    r = redis.Redis.from_url(args.url)
    r.ping()
    n_games = (
        {"hazari": 20, "azi": 40, "murlan": 2}
        if not args.quick
        else {"hazari": 4, "azi": 8, "murlan": 1}
    )
    rounds = 1 if args.quick else 3
    version = r.info("server")["redis_version"]
    print(f"event store on {args.url} (redis {version}), median of {rounds} round(s)")
    print(
        f"{'game':8} {'events':>7} {'append/s':>10} {'XADD/s':>10} {'ratio':>6}"
        f" {'replay ev/s':>12} {'bare ev/s':>10} {'ratio':>6} {'B/event':>8}"
    )
    results = [bench_game(r, game, n_games[game], rounds) for game in GAMES]
    for game, f in [*zip(GAMES, results, strict=True), ("all", combined(results))]:
        print(
            f"{game:8} {f.events:7d} {f.store_appends:10,.0f} {f.raw_appends:10,.0f}"
            f" {f.store_appends / f.raw_appends:6.2f} {f.replay:12,.0f} {f.bare_replay:10,.0f}"
            f" {f.replay / f.bare_replay:6.2f} {f.bytes_per_event:8.1f}"
        )
    print("targets: append ratio >= 0.5, replay ratio >= 0.5, <= 170 bytes per event")


def combined(results: list[Figures]) -> Figures:
    """The figures of all games' events together (rates over the summed times)."""
    events = sum(f.events for f in results)

    def overall(rate_of: Callable[[Figures], float]) -> float:
        return events / sum(f.events / rate_of(f) for f in results)

    return Figures(
        store_appends=overall(lambda f: f.store_appends),
        raw_appends=overall(lambda f: f.raw_appends),
        replay=overall(lambda f: f.replay),
        bare_replay=overall(lambda f: f.bare_replay),
        bytes_per_event=sum(f.bytes_per_event * f.events for f in results) / events,
        events=events,
    )


if __name__ == "__main__":
    main()
