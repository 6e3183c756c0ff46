"""Workers as they run in production: separate ``cardroom worker`` processes.

They run on the real Redis (a database of their own, flushed before and
after each test), started and stopped by :mod:`service.devstack`.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest
import redis

from service.config import load_settings
from service.devstack import Stack
from service.engines import table
from service.games import GameService
from service.runtime import Runtime
from service.store import EventStore
from tests.testredis import TEST_REDIS
from workers.context import install

WORKER_DB_URL = os.environ.get("CARDROOM_TEST_WORKER_REDIS_URL", f"{TEST_REDIS}/13")


@dataclass
class Cluster:
    """The test's own worker processes (``stack``), queue and services."""

    stack: Stack
    runtime: Runtime
    store: EventStore
    service: GameService

    def projected(self, game_id: str, deadline_s: float = 30) -> int:
        """Wait for the workers' projection to reach the stream's version."""
        deadline = time.monotonic() + deadline_s
        version = self.store.version(game_id)
        while self.store.snapshot_version(game_id) < version:
            if time.monotonic() > deadline:
                raise AssertionError(f"projection of {game_id} stuck below {version}")
            # Nothing to block on here but the snapshot key itself; wait on the
            # stream (which ends the wait early if anything is appended).
            self.store.wait(game_id, version, 50)
            version = self.store.version(game_id)
        return version

    def wait_until(
        self, game_id: str, done: Callable[[table.Table], bool], deadline_s: float
    ) -> table.Table:
        """Block on the game's stream (no sleeping) until ``done(state)`` holds."""
        deadline = time.monotonic() + deadline_s
        state = self.service.load(game_id)
        while not done(state):
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"game {game_id} stuck at version {state.version}")
            self.store.wait(game_id, state.version, int(min(left, 1.0) * 1000) or 1)
            state = self.service.load(game_id)
        return state


def finished(state: table.Table) -> bool:
    return state.over and state.server_seed is not None


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    """Worker processes on the real Redis's worker database, with a queue of their own."""
    client = redis.Redis.from_url(WORKER_DB_URL)
    try:
        client.ping()
    except redis.ConnectionError as exc:
        pytest.skip(f"no Redis answers at {WORKER_DB_URL} ({exc}); run tests/ensure-redis.sh")
    client.flushdb()
    queue = f"test-{uuid.uuid4().hex[:8]}"
    env = {
        **os.environ,
        "CARDROOM_REDIS_URL": WORKER_DB_URL,
        "CARDROOM_QUEUE_NAME": queue,
        "CARDROOM_BOT_DELAY_S": "0",
        "CARDROOM_LOG_LEVEL": "WARNING",
    }
    settings = load_settings(redis_url=WORKER_DB_URL, queue_name=queue, bot_delay_s=0)
    runtime = Runtime.from_settings(settings)
    install(runtime)
    store = EventStore(runtime.redis)
    stack = Stack(env)
    try:
        yield Cluster(stack, runtime, store, GameService(runtime, store))
    finally:
        stack.stop()
        client.flushdb()
        client.close()
