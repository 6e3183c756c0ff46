"""CPU per page of events, against a replay: what ``GET /games/{id}/events`` costs.

Run ``.venv/bin/python -m bench.bench_pages`` (about half a minute; ``--quick``
for a few seconds). It plays a Murlan bot game to its end on a Redis
database of its own (default ``redis://127.0.0.1:6379/13``, flushed before and
after), and times in this process,
through the app (Flask's test client, rate limits off), the CPU time
(``time.process_time``) of:

- *ended, kept*: a page of the ended game, cut from its kept events answer
  (``service.answers``), as the app serves it;
- *ended, from the stream*: the same page read, decoded and redacted from the
  stream, as a running game's page is (and as every page was before the kept
  answer): the kept answer switched off;
- *replay*: the ended game's kept replay document, for scale (one ``reads``
  token each).

Each for pages of 1000 (the largest), 200 (the default) and 40 events (what a
table's client reads when it opens). Prints the CPU per page, the bytes, and
what a page costs in ``reads`` (``service.api.limits.charge_events``).

Then the flood (``--flood-s``, 10 s a phase; 0 skips it): the deployment's API
(gunicorn with ``deploy/gunicorn.conf.py``, 2 processes of 16 threads) on a
Redis of its own with the deploy's config, ``CARDROOM_PROXIES=1`` so each
client names its address in ``X-Forwarded-For``; an ended Murlan game of over
1000 events. One address floods ``GET /games/{id}/events?limit=1000`` of it
from 12 keep-alive connections while another reads a table's view every
50 ms. Three phases: the views alone, for scale; the flood on an API of its
own with the ``reads`` budget out of reach (only the kept answer and the 50/s
flood guard); the flood on the default budgets. Prints pages answered and
refused per second, the API's CPU (its gunicorn workers', from ``/proc``) and
the other client's views p50/p99.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import threading
import time
from collections.abc import Callable
from typing import Any

import httpx
import redis

from bench.cpu import cpu_seconds
from bench.stats import percentile
from service import api
from service.api import events as events_view
from service.api.limits import EVENTS_PER_READ
from service.config import load_settings
from service.demo import play_bot_game
from service.devstack import Stack, running_stack
from service.runtime import Runtime

Timed = tuple[float, int]


def cpu_per_call(call: Callable[[], Any], rounds: int) -> Timed:
    """Median CPU ms per call over 5 batches of ``rounds`` calls, and the answer's size."""
    size = len(call().data)
    for _ in range(max(5, rounds // 10)):
        call()
    batches = []
    for _ in range(5):
        start = time.process_time()
        for _ in range(rounds):
            call()
        batches.append((time.process_time() - start) * 1000 / rounds)
    return statistics.median(batches), size


def reads(events: int, kept: bool) -> int:
    if events < EVENTS_PER_READ:
        return 0
    return 1 if kept else events // EVENTS_PER_READ


def ended_murlan(url: str) -> tuple[str, int]:
    """A Murlan bot game of 1000 events or more played to its end on ``url``, in
    this process (with an in-process worker): its id and its number of events."""
    settings = load_settings(redis_url=url, bot_delay_s=0, log_level="WARNING")
    runtime = Runtime.from_settings(settings)
    from workers.context import install
    from workers.embedded import EmbeddedWorker

    worker = EmbeddedWorker(runtime)
    install(runtime)
    while True:
        state, stored = play_bot_game(runtime, "murlan", {}, None, worker.drain)
        if len(stored) >= 1000:
            return state.game_id, len(stored)


def attack(api_url: str, path: str, stop: float, out: Any, connections: int) -> None:
    """``connections`` keep-alive connections of one address on ``path`` until
    ``stop`` (``time.monotonic()``); the count of each status goes to ``out``."""
    codes: dict[int, int] = {}
    lock = threading.Lock()

    def one() -> None:
        headers = {"X-Forwarded-For": "203.0.113.7"}
        with httpx.Client(base_url=api_url, headers=headers, timeout=10) as http:
            while time.monotonic() < stop:
                code = http.get(path).status_code
                with lock:
                    codes[code] = codes.get(code, 0) + 1

    threads = [threading.Thread(target=one) for _ in range(connections)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    out.put(codes)


def flood_phase(
    api_url: str, pids: list[int], path: str, view: str, seconds: float, connections: int = 12
) -> str:
    """The attacker in a process of its own (its threads would slow this one's
    client), the other client here: one view every 50 ms."""
    context = multiprocessing.get_context("fork")
    out = context.Queue()
    stop = time.monotonic() + seconds
    attacker = context.Process(target=attack, args=(api_url, path, stop, out, connections))
    before, started = cpu_seconds(pids), time.monotonic()
    attacker.start()
    views: list[float] = []
    headers = {"X-Forwarded-For": "198.51.100.2"}
    with httpx.Client(base_url=api_url, headers=headers, timeout=10) as http:
        while time.monotonic() < stop:
            start = time.perf_counter()
            assert http.get(view).status_code == 200
            views.append((time.perf_counter() - start) * 1000)
            time.sleep(0.05)  # a client's pace, not a wait for something
    codes = out.get(timeout=60)
    attacker.join(30)
    elapsed = time.monotonic() - started
    used = cpu_seconds(pids) - before
    p99 = percentile(views, 0.99)
    ok, refused = codes.get(200, 0) / elapsed, codes.get(429, 0) / elapsed
    return (
        f"pages 200: {ok:6.1f}/s, 429: {refused:6.1f}/s; "
        f"API CPU {100 * used / elapsed:4.0f}% of a core; other client's views "
        f"p50 {statistics.median(views):.1f} ms, p99 {p99:.1f} ms (n {len(views)})"
    )


def flood(seconds: float) -> None:
    defaults = {"CARDROOM_RATE_LIMIT": "50/second", "CARDROOM_LIMIT_READS": "60/minute"}
    with running_stack(
        workers=0, scheduler=False, api=False, CARDROOM_PROXIES="1", CARDROOM_LOG_LEVEL="WARNING"
    ) as stack:
        game_id, count = ended_murlan(stack.redis.url)
        out_of_reach = stack.start_api(2, 16, CARDROOM_RATE_LIMIT="50/second")
        budgets = stack.start_api(2, 16, **defaults)
        stack.wait_healthy()
        table = httpx.post(f"{budgets}/games", json={"game": "murlan"}, timeout=10).json()
        view = f"/games/{table['game_id']}"
        path = f"/games/{game_id}/events?limit=1000"
        print(f"flood: 12 connections on {path} ({count} events), {seconds:.0f} s a phase")
        phases = (
            ("no flood", budgets, 1, 0),
            ("reads out of reach", out_of_reach, 0, 12),
            ("default budgets", budgets, 1, 12),
        )
        for name, url, api, connections in phases:
            pids = workers_of(stack, api)
            httpx.get(f"{url}{path}", timeout=10)  # the kept answer, read once
            print(f"{name:18}: {flood_phase(url, pids, path, view, seconds, connections)}")


def workers_of(stack: Stack, api: int) -> list[int]:
    return stack.wait_api_workers(2, api=api)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", default="redis://127.0.0.1:6379/13")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--flood-s", type=float, default=10)
    args = parser.parse_args()
    rounds = 20 if args.quick else 100
    os.environ.setdefault("CARDROOM_LOG_LEVEL", "WARNING")
    client = redis.Redis.from_url(args.url)
    client.flushdb()
    try:
        settings = load_settings(redis_url=args.url, bot_delay_s=0, log_level="WARNING")
        runtime = Runtime.from_settings(settings)
        from workers.context import install
        from workers.embedded import EmbeddedWorker

        worker = EmbeddedWorker(runtime)
        install(runtime)
        state, stored = play_bot_game(runtime, "murlan", {}, None, worker.drain)
        app = api.create_app(settings, runtime, {"RATELIMIT_ENABLED": False})
        http = app.test_client()
        gid = state.game_id
        print(f"ended Murlan game: {len(stored)} events; load average {os.getloadavg()[0]:.1f}")
        print(f"{'page':24} {'events':>6} {'CPU ms':>7} {'KiB':>6} {'reads':>5}")
        real = events_view.ended_answer
        for limit in (1000, 200, 40):
            path = f"/games/{gid}/events?limit={limit}"
            n = min(limit, len(stored))
            kept = cpu_per_call(lambda p=path: http.get(p), rounds)
            events_view.ended_answer = lambda *_: None  # type: ignore[assignment]
            try:
                streamed = cpu_per_call(lambda p=path: http.get(p), rounds)
            finally:
                events_view.ended_answer = real
            for name, (ms, size), charged in (
                ("ended, kept", kept, reads(n, True)),
                ("ended, from the stream", streamed, reads(n, False)),
            ):
                print(f"{name:24} {n:>6} {ms:>7.2f} {size / 1024:>6.1f} {charged:>5}")
        replay = cpu_per_call(lambda: http.get(f"/games/{gid}/replay"), rounds)
        print(f"{'replay':24} {len(stored):>6} {replay[0]:>7.2f} {replay[1] / 1024:>6.1f} {1:>5}")
        kept_bytes = client.memory_usage(f"cardroom:{{{gid}}}:answer:events", samples=0)
        print(f"kept events answer: {int(kept_bytes or 0) / 1024:.1f} KiB in Redis")
    finally:
        client.flushdb()
    if args.flood_s > 0:
        flood(4 if args.quick else args.flood_s)


if __name__ == "__main__":
    main()
