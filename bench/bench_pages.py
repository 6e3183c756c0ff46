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
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

import redis

from service import api
from service.api import events as events_view
from service.api.limits import EVENTS_PER_READ
from service.config import load_settings
from service.demo import play_bot_game
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", default="redis://127.0.0.1:6379/13")
    parser.add_argument("--quick", action="store_true")
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


if __name__ == "__main__":
    main()
