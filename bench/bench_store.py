"""Event store benchmarks against a real Redis: appends, replays, memory.

Run ``.venv/bin/python -m bench.bench_store`` (about half a minute) or with
``--quick`` (a few seconds); ``--url`` picks the Redis (default
``redis://127.0.0.1:6379/15``). Only this benchmark's own keys are written,
and they are deleted at the end. Figures only; nothing is asserted here.

- *Appends*: one event per ``EventStore.append`` (the Lua script: version
  check, ``XADD``, encoding included), next to a bare redis-py ``XADD`` of
  the same already-encoded entries, one round trip each. Target ratio ≥ 0.9.
- *Replay*: a whole game read back, decoded into engine events and folded
  into its state (``EventStore.read`` + ``fold``), next to a bare ``XRANGE``
  and ``json.loads`` of every entry of the same stream (the store parses
  with orjson). Target ≥ 0.7.
- *Memory*: ``MEMORY USAGE`` of each game's stream over its event count.
  Target ≤ 60 bytes per event over the mix.

The games are random whole games of every engine (random legal moves).
Store and bare runs of the same work alternate in short timed pairs; each
ratio is the median of the pairs' ratios, so a burst of load on the machine
skews neither side. The rates are the totals over all pairs.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

import redis

from schemas import entries as stored_form
from service.devstack import new_game, play
from service.engines import table
from service.engines.base import Event
from service.engines.registry import GAMES
from service.store import EventStore, keys

SEATS = {"azi": 4}
RAW_KEY = "cardroom-bench:{raw}:events"
CHUNK = 16


@dataclass
class Pairs:
    """Times of the store and of its bare counterpart doing the same work,
    taken in alternation, so that a busy machine slows both alike."""

    counts: list[int] = field(default_factory=list)
    store_s: list[float] = field(default_factory=list)
    bare_s: list[float] = field(default_factory=list)

    def time(self, count: int, store: Callable[[], None], bare: Callable[[], None]) -> None:
        first_bare = len(self.counts) % 2 == 0
        times = {}
        for name, run in (
            (("bare", bare), ("store", store)) if first_bare else (("store", store), ("bare", bare))
        ):
            start = time.perf_counter()
            run()
            times[name] = time.perf_counter() - start
        self.counts.append(count)
        self.store_s.append(times["store"])
        self.bare_s.append(times["bare"])

    def rates(self) -> tuple[float, float, float]:
        """Events per second of the store and of the bare commands, and the
        median of the pairs' ratios (robust to bursts of load)."""
        total = sum(self.counts)
        ratio = statistics.median(b / s for s, b in zip(self.store_s, self.bare_s, strict=True))
        return total / sum(self.store_s), total / sum(self.bare_s), ratio


def random_games(game: str, count: int, seed: int) -> list[list[Event]]:
    games = []
    for i in range(count):
        rng = random.Random(seed + i)
        played = new_game(game, rng=rng, seats=SEATS.get(game), game_id=f"bench-{game}-{i}")
        games.append(play(played, rng).events)
    return games


def renamed(events: list[Event], game_id: str) -> list[Event]:
    """The same game under another id (its first event names the game)."""
    first = events[0]
    assert isinstance(first, table.GameCreated)
    return [dataclasses.replace(first, game_id=game_id), *events[1:]]


def bench_appends(
    r: redis.Redis, store: EventStore, games: list[list[Event]], pairs: Pairs
) -> None:
    """Append every game one event per call, in chunks, each chunk also
    ``XADD``ed bare (already encoded) to a scratch stream."""
    for i, events in enumerate(games):
        game_id = f"bench-append-{i}"
        r.delete(keys.events(game_id))
        events = renamed(events, game_id)
        for start in range(0, len(events), CHUNK):
            chunk = events[start : start + CHUNK]
            packed = [stored_form.pack(e) for e in chunk]

            def through_store(
                chunk: list[Event] = chunk, start: int = start, game_id: str = game_id
            ) -> None:
                for version, event in enumerate(chunk, start=start):
                    store.append(game_id, [event], version)

            def bare(packed: list[bytes] = packed) -> None:
                for data in packed:
                    r.xadd(RAW_KEY, {stored_form.FIELD: data})

            pairs.time(len(chunk), through_store, bare)
        r.delete(RAW_KEY)


def bench_replay(r: redis.Redis, store: EventStore, game_id: str, count: int, pairs: Pairs) -> None:
    """One whole game read, decoded and folded, against the same stream read bare."""

    def replay() -> None:
        table.fold([s.event for s in store.read(game_id)])

    def bare() -> None:
        rows: Any = r.xrange(keys.events(game_id))
        for _, fields in rows:
            json.loads(fields[stored_form.FIELD])

    pairs.time(count, replay, bare)


def bench_game(r: redis.Redis, game: str, n_games: int, rounds: int) -> Figures:
    games = random_games(game, n_games, seed=1000)
    count = sum(len(events) for events in games)
    store = EventStore(r)
    appends = Pairs()
    for _ in range(rounds):
        bench_appends(r, store, games, appends)
    ids = [f"bench-append-{i}" for i in range(n_games)]
    replays = Pairs()
    for _ in range(rounds):
        for game_id, events in zip(ids, games, strict=True):
            bench_replay(r, store, game_id, len(events), replays)
    memory = sum(r.memory_usage(keys.events(g), samples=0) or 0 for g in ids)
    r.delete(*(keys.events(g) for g in ids))
    return Figures(appends, replays, memory, count)


@dataclass
class Figures:
    appends: Pairs
    replays: Pairs
    memory: int
    events: int

    def row(self, name: str) -> str:
        store_rate, raw_rate, append_ratio = self.appends.rates()
        replay_rate, bare_rate, replay_ratio = self.replays.rates()
        return (
            f"{name:8} {self.events:7d} {store_rate:10,.0f} {raw_rate:10,.0f} {append_ratio:6.2f}"
            f" {replay_rate:12,.0f} {bare_rate:10,.0f} {replay_ratio:6.2f}"
            f" {self.memory / self.events:8.1f}"
        )


def combined(results: list[Figures]) -> Figures:
    """All games' events together: their pairs pooled, their memory summed."""
    appends, replays = Pairs(), Pairs()
    for f in results:
        for pooled, pairs in ((appends, f.appends), (replays, f.replays)):
            pooled.counts += pairs.counts
            pooled.store_s += pairs.store_s
            pooled.bare_s += pairs.bare_s
    return Figures(appends, replays, sum(f.memory for f in results), sum(f.events for f in results))


TARGETS: Final = {"append ratio": 0.9, "replay ratio": 0.7, "bytes per event": 60.0}


def target_lines(rows: list[tuple[str, Figures]]) -> list[str]:
    """One ``target …`` line per target (``python -m bench`` gathers them)."""
    out = []
    for name, figures in rows:
        got = {
            "append ratio": figures.appends.rates()[2],
            "replay ratio": figures.replays.rates()[2],
            "bytes per event": figures.memory / figures.events,
        }
        for target, aim in TARGETS.items():
            value = got[target]
            met = value <= aim if target == "bytes per event" else value >= aim
            sign = "<=" if target == "bytes per event" else ">="
            verdict = "met" if met else "NOT met"
            out.append(f"target store {name} {target}: {value:.2f} ({sign} {aim}: {verdict})")
    return out


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
    print(f"event store on {args.url} (redis {version}), {rounds} round(s)")
    print(
        f"{'game':8} {'events':>7} {'append/s':>10} {'XADD/s':>10} {'ratio':>6}"
        f" {'replay ev/s':>12} {'bare ev/s':>10} {'ratio':>6} {'B/event':>8}"
    )
    results = [bench_game(r, game, n_games[game], rounds) for game in GAMES]
    for game, figures in zip(GAMES, results, strict=True):
        print(figures.row(game))
    everything = combined(results)
    print(everything.row("all"))
    for line in target_lines([*zip(GAMES, results, strict=True), ("all", everything)]):
        print(line)
    print("ratios: median over alternating timed pairs (store, bare) of the same work")


if __name__ == "__main__":
    main()
