"""HTTP latency of an accepted move, next to the floor of any write through the same server.

Run ``.venv/bin/python -m bench.bench_api`` (about a minute; ``--moves 300``
for a quick look). It starts the app under gunicorn (``gthread`` worker,
one process) on a Redis database of its own (default
``redis://127.0.0.1:6379/12``, flushed before and after: point ``--url`` at
a database nothing else uses) with the bench's bare endpoint switched on
(``BENCH_FLOOR``), then times, over keep-alive HTTP from one client:

- *move*: ``POST /games/{id}/moves`` of a legal Murlan move with its
  expected version — token check and load (one round trip), the engine's
  decision, the atomic append, the answer (the workers' follow-up job is
  enqueued as the answer goes out);
- *floor*: ``POST /bench/floor`` with the same body — parse it and do one
  ``XADD``: the least any accepted write costs through this app and server.

The two take turns, so load on the machine hits both alike; the floor goes
first, so the follow-up job a move enqueues after answering is sent while
the next move is being chosen (untimed), not while the floor is timed.
Prints p50 and p99 of each and the ratios; the target is a move's p50
within 2x the floor's. Choosing the moves (a seat view) and the
system steps (deals, done in this process as the workers would) are not
timed. Rate limiting is off for both unless ``--rate-limit`` is given.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from typing import Any

import httpx
import redis

from bench.closed_loop import new_table
from bench.stats import percentile
from service.config import load_settings
from service.devstack import GUNICORN, Stack, free_port, wait_for
from service.games import GameService
from service.runtime import Runtime

APP = "service.api:create_app(config={'BENCH_FLOOR': True, 'RATELIMIT_ENABLED': %s})"


def start_server(url: str, port: int, rate_limit: bool) -> Stack:
    env = {
        **os.environ,
        "CARDROOM_REDIS_URL": url,
        "CARDROOM_QUEUE_NAME": "cardroom-bench",
        "CARDROOM_RATE_LIMIT": "1000000/second",
        "CARDROOM_LIMIT_MOVES": "1000000/second",
    }
    cmd = [
        GUNICORN,
        "--worker-class", "gthread", "--workers", "1", "--threads", "4",
        "--bind", f"127.0.0.1:{port}", "--log-level", "warning",
        APP % rate_limit,
    ]  # fmt: skip
    server = Stack(env)
    server.start_process("api", cmd)
    return server


def wait_ready(http: httpx.Client, server: Stack) -> None:
    def healthy() -> bool:
        try:
            return http.get("/healthz").status_code == 200
        except httpx.TransportError:
            return False

    try:
        wait_for(
            healthy,
            time.monotonic() + 30,
            lambda: "the server did not answer /healthz",
            alive=server.check_running,
        )
    except RuntimeError as exc:
        raise SystemExit(f"the server did not start: {exc}") from None


def run(http: httpx.Client, service: GameService, moves: int, rng: random.Random) -> Any:
    move_ms: list[float] = []
    floor_ms: list[float] = []
    gid, tokens = new_table(http)
    while len(move_ms) < moves:
        service.advance(gid)
        public = http.get(f"/games/{gid}").json()
        if public["status"] == "ended":
            gid, tokens = new_table(http)
            continue
        seat = rng.choice(public["to_act"])
        view = http.get(f"/games/{gid}", headers={"Authorization": f"Bearer {tokens[seat]}"}).json()
        body = {"move": rng.choice(view["legal_moves"]), "expected_version": view["version"]}
        headers = {"Authorization": f"Bearer {tokens[seat]}"}
        # the floor first: the follow-up job a move enqueues after answering is
        # then sent while the next move is chosen (untimed), not during the floor
        t = time.perf_counter()
        r = http.post("/bench/floor", json=body, headers=headers)
        floor_ms.append((time.perf_counter() - t) * 1000)
        assert r.status_code == 201, r.text
        t = time.perf_counter()
        r = http.post(f"/games/{gid}/moves", json=body, headers=headers)
        move_ms.append((time.perf_counter() - t) * 1000)
        assert r.status_code == 201, r.text
    return move_ms, floor_ms


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", default="redis://127.0.0.1:6379/12")
    parser.add_argument("--moves", type=int, default=1500)
    parser.add_argument("--warmup", type=int, default=100)
    parser.add_argument("--rate-limit", action="store_true", help="keep rate limiting on")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    client = redis.Redis.from_url(args.url)
    client.flushdb()
    port = free_port()
    server = start_server(args.url, port, args.rate_limit)
    settings = load_settings(redis_url=args.url, queue_name="cardroom-bench")
    runtime = Runtime.from_settings(settings)
    service = runtime.service()
    rng = random.Random(args.seed)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as http:
            wait_ready(http, server)
            run(http, service, args.warmup, rng)
            move_ms, floor_ms = run(http, service, args.moves, rng)
    finally:
        server.stop()
        client.flushdb()
    p50m, p99m = statistics.median(move_ms), percentile(move_ms, 0.99)
    p50f, p99f = statistics.median(floor_ms), percentile(floor_ms, 0.99)
    print(f"accepted moves over HTTP: {len(move_ms)} (gunicorn gthread, Redis {args.url})")
    print(f"move  p50 {p50m:7.3f} ms   p99 {p99m:7.3f} ms")
    print(f"floor p50 {p50f:7.3f} ms   p99 {p99f:7.3f} ms   (parse + one XADD)")
    print(f"ratio p50 {p50m / p50f:5.2f}x     p99 {p99m / p99f:5.2f}x   (target: p50 within 2x)")


if __name__ == "__main__":
    main()
