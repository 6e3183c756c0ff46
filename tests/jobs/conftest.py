"""The ``cluster`` fixture: real worker processes on the real Redis."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest
import redis
from workerlib import WORKER_DB_URL, Cluster

from service.config import load_settings
from service.games import GameService
from service.runtime import Runtime
from service.store import EventStore
from workers.context import install


@pytest.fixture
def cluster() -> Iterator[Cluster]:
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
    made = Cluster(env, runtime, store, GameService(runtime, store))
    yield made
    made.stop_all()
    client.flushdb()
    client.close()
