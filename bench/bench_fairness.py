"""The fairness report's costs: answering from the projection, and rebuilding it.

Run ``.venv/bin/python -m bench.bench_fairness`` (about a minute) or with
``--quick``; ``--rebuild-only`` skips the report. Figures only; nothing is
asserted here.

- *Report*: the projection is filled with ``--games`` finished games (10,000
  by default: a third each Murlan, Azi and Hazari, 4 named players each from
  a pool of ``--players``), their deals made with the published shuffle and
  counted by the same code the workers run (:func:`projection.merge`); then
  ``GET /fairness/report`` is timed through the Flask app (median and worst
  of 10, once the analysis the app makes when it starts is ready), then
  right after each of 5 more games is counted (the kept analysis answers
  while a new one is made behind it). The analysis itself is timed too.
- *Rebuild*: bot games of every kind are played to their end on the embedded
  stack, then :func:`projection.rebuild` recounts them from their streams
  ``--repeats`` times; the figure is its wall time per deal (median and
  best), with the CPU time per deal of this process and, on a real Redis,
  of the server (``INFO cpu``): on a busy machine the wall time swells with
  waiting for a core, the CPU time far less. Then the CPU time per deal of
  each step (reading the stream and decoding what the counts read, the
  features and counting, the merge), and of the features alone for each
  game. The bot games are new every run, so the mix of deals (printed) varies.

With ``--redis-url`` the projection and the rebuilt games live on that Redis
(a database of its own: it is flushed), else on the in-process fakeredis.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import statistics
import time
from collections import Counter
from typing import Any

import fakeredis
import redis as redis_lib

from service.engines.shuffle import Shuffler
from service.fairness import projection
from service.fairness.features import deal_fields
from service.store import EventStore
from service.store import fairness as counts_keys


class Deal:
    def __init__(
        self, deal: int, dealer: int, hands: list[list[str]], trump_card: str = ""
    ) -> None:
        self.deal, self.dealer, self.trump_card = deal, dealer, trump_card
        self.hands = tuple(tuple(h) for h in hands)


def deals_of(kind: str, sh: Shuffler, count: int) -> list[Deal]:
    out = []
    for d in range(count):
        if kind == "murlan":
            deck = [str(c) for c in sh.deal(d, 54)[0]]
            hands: list[list[str]] = [[] for _ in range(4)]
            for i, c in enumerate(deck):
                hands[(d + i) % 4].append(c)
            out.append(Deal(d, d % 4, hands))
        elif kind == "hazari":
            deck = [str(c) for c in sh.deal(d, 52)[0]]
            hands = [[] for _ in range(4)]
            for i, c in enumerate(deck):
                hands[(d % 4 + 1 + i) % 4].append(c)
            out.append(Deal(d, d % 4, hands))
        else:
            deck = [str(c) for c in sh.deal(d, 27)[0]]
            dealer = d % 4
            hands = [[] for _ in range(4)]
            for k in range(12):
                hands[(dealer + 1 + k) % 4].append(deck[k])
            out.append(Deal(d, dealer, hands, deck[12]))
    return out


GAME_OF = {
    "murlan": ("murlan", {}, 6),
    "azi": ("azi", {"deck": 27, "cards": 3}, 12),
    "hazari": ("hazari", {}, 3),
}


def fill(store: EventStore, games: int, players: int) -> int:
    rng = random.Random(1)
    deals_total = 0
    kinds = list(GAME_OF)
    for g in range(games):
        kind = kinds[g % 3]
        game, options, n = GAME_OF[kind]
        sh = Shuffler(hashlib.sha256(f"bench-{g}".encode()).digest(), f"g{g}", ("b",))
        names: list[str | None] = [f"player{rng.randrange(players)}" for _ in range(4)]
        fields: dict[str, str] = {}
        counts: Counter[str] = Counter()
        for deal in deals_of(kind, sh, n):
            counts.update(deal_fields(game, options, deal, names))
        fields = {"d:all": __import__("json").dumps(list(counts.elements()))}
        projection.merge(store, f"g{g}", fields)
        deals_total += n
    return deals_total


def bench_report(redis: Any, games: int, players: int) -> None:
    from service.api import create_app
    from service.config import load_settings
    from service.runtime import Runtime

    started = time.perf_counter()
    deals = fill(EventStore(redis), games, players)
    took = time.perf_counter() - started
    print(f"filled the projection: {games} games, {deals} deals in {took:.1f}s")
    print(f"  {redis.hlen(counts_keys.COUNTS)} counters")
    from service.fairness import report
    from service.fairness.expectations import pmf

    settings = load_settings(redis_url=None)
    runtime = Runtime.from_settings(settings)
    runtime.redis = redis  # type: ignore[misc]
    app = create_app(settings, runtime, {"TESTING": True, "RATELIMIT_ENABLED": False})
    client = app.test_client()
    store = app.extensions["cardroom"].store

    def timed(path: str) -> tuple[float, Any]:
        t = time.perf_counter()
        res = client.get(path)
        assert res.status_code == 200, res.get_data(as_text=True)[:300]
        return (time.perf_counter() - t) * 1000, res

    t = time.perf_counter()
    counts, _ = projection.read(store)
    for name in counts:
        pmf(name.split("|")[3])
    warm_pmf = (time.perf_counter() - t) * 1000
    t = time.perf_counter()
    report.analyse(counts)
    analysis = (time.perf_counter() - t) * 1000
    # what the app's warm-up does at start
    app.extensions["cardroom_fairness"].cached_report(store, wait=True)
    times = [timed("/fairness/report")[0] for _ in range(10)]
    res = timed("/fairness/report")[1]
    body = res.get_json()
    print(
        f"GET /fairness/report over {body['games']} games ({body['tests']} tests, "
        f"{body['players']} players, {len(res.get_data()) // 1024} KiB): "
        f"median {statistics.median(times):.0f} ms, worst {max(times):.0f} ms"
    )
    print(
        f"  the analysis, made at start and after each counted game in the background: "
        f"{analysis:.0f} ms (loading the exact distributions, once: {warm_pmf:.0f} ms)"
    )
    after = []
    for g in range(5):  # a game is counted: the kept analysis answers, a new one is made behind
        projection.merge(store, f"late-{g}", {"d:0": '["murlan|jokers|seat:0|hg:54:2:14:0|1"]'})
        after.append(timed("/fairness/report")[0])
        while timed("/fairness/report")[1].get_json()["games"] != games + g + 1:
            time.sleep(0.01)
    print(f"  right after a game is counted: worst {max(after):.0f} ms")
    mine = [timed("/fairness/report?player=player7")[0] for _ in range(5)]
    print(f"  one player's view (my luck): median {statistics.median(mine):.0f} ms")


def bench_rebuild(rounds: int, redis_url: str | None = None, repeats: int = 9) -> None:
    from service.config import load_settings
    from service.demo import play_bot_game
    from service.runtime import Runtime
    from service.store import EventStore
    from workers.context import install
    from workers.embedded import EmbeddedWorker

    runtime = Runtime.from_settings(load_settings(redis_url=redis_url, bot_delay_s=0))
    worker = EmbeddedWorker(runtime)
    install(runtime)
    redis = runtime.redis
    store = EventStore(redis)
    kinds = (("murlan", {}, None), ("azi", {"buy_in": 200}, 4), ("hazari", {"target": 1000}, None))
    per_kind: dict[str, list[float]] = {}
    dealt: Counter[str] = Counter()
    for _ in range(rounds):
        for game, options, seats in kinds:
            state, stored = play_bot_game(runtime, game, options, seats, worker.drain)
            deals = [e for e in stored if getattr(e.event, "is_deal", False)]
            dealt[game] += len(deals)
            t = time.process_time()
            projection.game_counts(state, stored)
            per_kind.setdefault(game, []).append((time.process_time() - t) * 1000 / len(deals))
    live = projection.read(store)

    def server_cpu() -> float:  # seconds the Redis server has run (none in-process)
        if redis_url is None:
            return 0.0
        info = redis.info("cpu")
        return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])

    wall, cpu, server = [], [], []
    done = {"games": 0, "deals": 0}
    for _ in range(repeats):
        s, t, c = server_cpu(), time.perf_counter(), time.process_time()
        done = projection.rebuild(store)
        wall.append((time.perf_counter() - t) * 1000 / done["deals"])
        cpu.append((time.process_time() - c) * 1000 / done["deals"])
        server.append((server_cpu() - s) * 1000 / done["deals"])
        assert projection.read(store) == live, "the rebuilt projection differs from the live one"
    mix = ", ".join(f"{dealt[game]} {game}" for game, _, _ in kinds)
    print(
        f"rebuild: {done['games']} games, {done['deals']} deals ({mix}): "
        f"{statistics.median(wall):.2f} ms per deal (median of {repeats}, best "
        f"{min(wall):.2f}; CPU {statistics.median(cpu):.2f} ms here, best {min(cpu):.2f}"
        + (f" + {statistics.median(server):.2f} in Redis" if redis_url else "")
        + "); equal to the live projection"
    )
    # Where one rebuild's time goes: the same steps, timed one by one (median of 3).
    steps: dict[str, list[float]] = {}
    scratch = tuple(f"{k}:bench" for k in counts_keys.PUBLIC)
    items, cursor = store.list_games(status="ended", limit=200)
    while cursor is not None:
        more, cursor = store.list_games(status="ended", limit=200, cursor=cursor)
        items += more
    for _ in range(3):
        took: Counter[str] = Counter()
        for item in items:
            c = time.process_time()
            found = projection.counted_stream(store, item.game_id)
            took["read and decode"] += time.process_time() - c
            if found is None:
                continue
            c = time.process_time()
            counts, deals = projection.game_counts(*found)
            took["features and count"] += time.process_time() - c
            c = time.process_time()
            projection.merge_counts(store, item.game_id, counts, deals, scratch)
            took["merge"] += time.process_time() - c
        store.fairness.clear(scratch)
        for name, v in took.items():
            steps.setdefault(name, []).append(v * 1000 / done["deals"])
    print(
        "  CPU per deal: "
        + ", ".join(f"{name} {statistics.median(v):.2f}" for name, v in steps.items())
        + " ms"
    )
    for game, ms in per_kind.items():
        print(f"  features alone, {game}: {statistics.mean(ms):.3f} ms CPU per deal")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--players", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=3, help="bot games of each kind to rebuild")
    parser.add_argument("--redis-url", default=None)
    parser.add_argument("--repeats", type=int, default=9, help="rebuilds to time")
    parser.add_argument("--rebuild-only", action="store_true", help="skip the report")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.games, args.rounds = 600, 1
    redis = redis_lib.Redis.from_url(args.redis_url) if args.redis_url else fakeredis.FakeRedis()
    redis.flushdb()
    if not args.rebuild_only:
        try:
            bench_report(redis, args.games, args.players)
        finally:
            redis.flushdb()
    try:
        bench_rebuild(args.rounds, args.redis_url, args.repeats)
    finally:
        redis.flushdb()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
