"""Follow-ups and timers survive any single fault, on a stack of real processes.

Each test starts its own redis-server on a free loopback port, gunicorn,
workers and the scheduler (``service.devstack``); bots think for 0.3 s, so their
moves go through the timers index. "Moves again" is measured from the fault
to the first new event of every game, polled with a deadline.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from service.devstack import Stack, acl_with_admin, create_bot_game, running_stack
from service.store import EventStore

pytestmark = [pytest.mark.redis, pytest.mark.slow]

MOVES_AGAIN_S = 10.0


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[Stack]:
    with running_stack(
        workers=2,
        aclfile=acl_with_admin(tmp_path),  # one test SCANs, as admin
        api_processes=1,
        api_threads=8,
        CARDROOM_BOT_DELAY_S="0.3",
        CARDROOM_FOLLOWUP_LEASE_S="2",
        CARDROOM_RECONCILE_INTERVAL_S="1",
    ) as made:
        yield made


def bot_games(stack: Stack, count: int) -> tuple[EventStore, list[str]]:
    with httpx.Client(timeout=10) as http:
        ids = [
            create_bot_game(http, stack.api_url, [stack.api_url], "murlan", {})
            for _ in range(count)
        ]
    return EventStore(stack.redis.client()), ids


def versions(store: EventStore, game_ids: list[str]) -> dict[str, int]:
    return {g: store.version(g) for g in game_ids}


def moved_within(store: EventStore, before: dict[str, int], deadline_s: float) -> float:
    """Seconds until every game has a new event (fails past the deadline)."""
    started = time.monotonic()
    waiting = dict(before)
    while waiting:
        for game_id, version in list(waiting.items()):
            if store.version(game_id) > version:
                del waiting[game_id]
        elapsed = time.monotonic() - started
        assert elapsed < deadline_s, f"games stuck {elapsed:.1f} s after the fault: {waiting}"
        if waiting:
            game_id = next(iter(waiting))
            try:
                store.wait(game_id, waiting[game_id], 100)
            except Exception:  # Redis still coming back
                time.sleep(0.05)
    return time.monotonic() - started


def test_bot_games_move_again_after_a_worker_is_killed(stack: Stack) -> None:
    store, games = bot_games(stack, 4)
    moved_within(store, versions(store, games), 30)  # all playing
    for victim in list(stack.workers):
        victim.kill()
        took = moved_within(store, versions(store, games), MOVES_AGAIN_S)
        print(f"\nSIGKILL of one worker: every game moved again within {took:.2f} s")
        stack.workers.remove(victim)
        stack.start_worker()


def test_bot_games_move_again_after_redis_restarts(stack: Stack) -> None:
    store, games = bot_games(stack, 4)
    moved_within(store, versions(store, games), 30)
    before = versions(store, games)
    stack.redis.restart()
    store = EventStore(stack.redis.client())
    took = moved_within(store, before, MOVES_AGAIN_S)
    print(f"\nRedis restart: every game moved again within {took:.2f} s of Redis answering")


def test_a_stalled_redis_gives_503_fast(stack: Stack) -> None:
    store, games = bot_games(stack, 1)
    assert stack.redis.proc is not None
    pid = stack.redis.proc.pid
    os.kill(pid, signal.SIGSTOP)
    try:
        with httpx.Client(timeout=10) as http:
            started = time.monotonic()
            r = http.get(f"{stack.api_url}/games/{games[0]}")
            took = time.monotonic() - started
    finally:
        os.kill(pid, signal.SIGCONT)
    print(f"\nSIGSTOPped Redis: {r.status_code} after {took:.2f} s")
    assert r.status_code == 503 and r.headers.get("Retry-After")
    assert took < 2.0
    moved_within(store, versions(store, games), MOVES_AGAIN_S)


def test_a_finished_game_leaves_no_rq_keys(stack: Stack) -> None:
    with httpx.Client(timeout=10) as http:
        game_id = create_bot_game(http, stack.api_url, [stack.api_url], "azi", {"buy_in": 30})
    client = stack.redis.client()
    store = EventStore(client)
    deadline = time.monotonic() + 120
    while store.list_games(status="ended", limit=5)[0] == [] or client.llen("rq:queue:cardroom"):
        assert time.monotonic() < deadline, "the game did not end"
        store.wait(game_id, store.version(game_id), 500)
    # The last job's own clean-up may still be in flight: poll until it is done.
    admin = stack.redis.admin_client()  # SCAN is not the service's to run
    while True:
        jobs = list(admin.scan_iter("rq:job:*"))
        results = list(admin.scan_iter("rq:results:*"))
        if (not results and len(jobs) <= 1) or time.monotonic() > deadline:
            break
        store.wait(game_id, store.version(game_id), 100)
    print(
        f"\nfinished Azi game of {store.version(game_id)} events: {len(jobs)} rq:job, "
        f"{len(results)} rq:results keys"
    )
    assert results == []
    assert len(jobs) <= 1  # at most a follow-up still queued by the last append's poke
