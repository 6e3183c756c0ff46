"""Slow clients against the API, with and without the shipped nginx front.

Run ``.venv/bin/python -m bench.slowloris`` (about a minute; ``--quick`` for
fewer views). It starts the deployment's API (gunicorn with
``deploy/gunicorn.conf.py``: 2 processes of 16 threads) on a Redis with the
deploy's config, and nginx with ``deploy/nginx.conf`` in front of it
(:mod:`service.devstack.front`; needs ``nginx``, see ``tests/ensure-nginx.sh``). For each
way in — straight to gunicorn, then through nginx — it opens ``--slow``
connections that send half a request header and stall, times ``--views``
views of a table (each on a new connection, 5 s timeout) meanwhile, and then
watches for how long the server keeps the stalled connections open (up to
``--hold`` seconds from when they stalled). Prints, per way in: views answered, p50/p99/max, and how
many stalled connections were dropped, when.
"""

from __future__ import annotations

import argparse
import statistics
import time

import httpx

from bench.stats import percentile
from service.devstack import (
    closed_within,
    free_port,
    half_headers,
    nginx_missing,
    running_stack,
    start_front,
    timed_views,
)


def probe(url: str, port: int, slow: int, views: int, hold_s: float, path: str) -> str:
    since = time.monotonic()
    stalled = half_headers(port, slow)
    timed = timed_views(url, [path] * views, timeout_s=5)
    dropped = closed_within(stalled, since + hold_s - time.monotonic(), since)
    took = [t * 1000 for _, t in timed]
    answered = sum(1 for s, _ in timed if s == 200)
    gone = [t for t in dropped if t != float("inf")]
    when = f", by {max(gone):.1f} s" if gone else ""
    return (
        f"views answered {answered}/{views}; p50 {statistics.median(took):.0f} ms, "
        f"p99 {percentile(took, 0.99):.0f} ms, max {max(took):.0f} ms; stalled connections dropped "
        f"{len(gone)}/{slow} within {hold_s:.0f} s of stalling{when}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--slow", type=int, default=40)
    parser.add_argument("--views", type=int, default=18)
    parser.add_argument("--hold", type=float, default=30)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.views, args.hold = 6, 15
    missing = nginx_missing()
    if missing is not None:
        raise SystemExit(f"{missing}: run tests/ensure-nginx.sh")
    with running_stack(workers=0, scheduler=False, CARDROOM_PROXIES="1") as stack:
        front = start_front(stack, stack.api_url, f"127.0.0.1:{free_port()}")
        created = httpx.post(f"{stack.api_url}/games", json={"game": "murlan"}, timeout=10)
        path = f"/games/{created.json()['game_id']}"
        api_port = int(stack.api_url.rsplit(":", 1)[1])
        print(f"{args.slow} connections sending half a header; {args.views} views meanwhile")
        line = probe(stack.api_url, api_port, args.slow, args.views, args.hold, path)
        print(f"gunicorn alone : {line}")
        line = probe(front.url, front.port, args.slow, args.views, args.hold, path)
        print(f"through nginx  : {line}")


if __name__ == "__main__":
    main()
