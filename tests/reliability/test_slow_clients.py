"""Slow clients meet the shipped nginx front, not the API.

The deployment's front as shipped (``deploy/nginx.conf``, only its upstreams,
port and paths made local: :func:`service.devstack.local_nginx_conf`) in front of
the API under gunicorn with ``deploy/gunicorn.conf.py`` (2 processes of 16
threads, as deployed) on a Redis with the deploy's config. Sixty connections
send half a request header and stall — more than the API has threads, which
without the front leaves no thread for anyone (``python -m bench.slowloris``
measures that) — while another client reads a table's view forty times
through the front: every view answers, quickly. Then 32 connections send
whole headers and half a body: they fill the front's ``limit_conn`` for the
address (one more request is a 429 problem) and never reach the API (its
threads stay free, and no game is created). nginx drops the half headers and
the half bodies once its ``client_header_timeout`` / ``client_body_timeout``
(10 s) have passed.
"""

from __future__ import annotations

import time

import httpx
import pytest

from service.devstack import (
    closed_within,
    free_port,
    half_bodies,
    half_headers,
    nginx_missing,
    p99,
    running_stack,
    start_front,
    timed_views,
    wait_for,
)

from .faults import needs_redis_server

pytestmark = [
    needs_redis_server,
    pytest.mark.slow,
    pytest.mark.skipif(
        nginx_missing() is not None, reason=f"{nginx_missing()}: run tests/ensure-nginx.sh"
    ),
]

SLOW_HEADERS = 60
VIEWS = 40
VIEW_P99_S = 2.0
"""Generous: a view takes a few milliseconds; a starved API would time them out (5 s)."""
TIMEOUT_S = 10
"""``client_header_timeout`` and ``client_body_timeout`` of deploy/nginx.conf."""
LIMIT_CONN = 32
"""``limit_conn per_address`` of deploy/nginx.conf."""
MARGIN_S = 5


def test_slow_clients_are_held_by_the_front_and_cost_the_api_nothing() -> None:
    with running_stack(workers=0, scheduler=False, CARDROOM_PROXIES="1") as stack:
        front = start_front(stack, stack.api_url, f"127.0.0.1:{free_port()}")
        created = httpx.post(f"{front.url}/games", json={"game": "murlan"}, timeout=10)
        assert created.status_code == 201, created.text
        game_id = created.json()["game_id"]

        stalled = time.monotonic()
        headers = half_headers(front.port, SLOW_HEADERS)
        views = timed_views(front.url, [f"/games/{game_id}"] * VIEWS, timeout_s=5)
        assert [s for s, _ in views] == [200] * VIEWS, views
        took = [t for _, t in views]
        assert p99(took) < VIEW_P99_S, f"view p99 {p99(took):.3f} s with {SLOW_HEADERS} stalled"

        bodies = half_bodies(front.port, LIMIT_CONN)
        bodies_sent = time.monotonic()
        refused: list[httpx.Response] = []

        def one_more_is_refused() -> bool:
            r = httpx.get(f"{front.url}/games/{game_id}", timeout=5)
            refused.append(r)
            return r.status_code == 429

        wait_for(one_more_is_refused, time.monotonic() + 5, lambda: f"not refused: {refused}")
        problem = refused[-1]
        assert problem.headers["content-type"] == "application/problem+json"
        assert problem.json()["budget"] == "connections" and problem.json()["limit"] == LIMIT_CONN
        assert problem.headers["retry-after"] == "5"
        # the API never saw them: its 32 threads are free (straight to it, past the front)
        direct = timed_views(stack.api_url, [f"/games/{game_id}"] * 5, timeout_s=5)
        assert [s for s, _ in direct] == [200] * 5, direct
        assert p99([t for _, t in direct]) < VIEW_P99_S

        bound = TIMEOUT_S + MARGIN_S
        dropped = closed_within(headers, stalled + bound - time.monotonic(), stalled)
        assert max(dropped) < bound, f"half headers still open {bound} s on: {dropped}"
        dropped = closed_within(bodies, bodies_sent + bound - time.monotonic(), bodies_sent)
        assert max(dropped) < bound, f"half bodies still open {bound} s on: {dropped}"
        assert min(dropped) > TIMEOUT_S / 2  # held by nginx until its timeout, not refused

        after = timed_views(front.url, [f"/games/{game_id}", "/games"], timeout_s=5)
        assert [s for s, _ in after] == [200, 200], after
        listed = httpx.get(f"{front.url}/games", timeout=5).json()["items"]
        assert [g["game_id"] for g in listed] == [game_id]  # no half body reached the API
