"""Fixtures of the scale-out tests: the session's local Redis Cluster and a
standalone Redis for the RQ broker."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
import redis

from service.devstack import LocalCluster, shared_cluster, tools_missing
from tests.testredis import TEST_REDIS

QUEUE_URL = os.environ.get("CARDROOM_TEST_QUEUE_REDIS_URL", f"{TEST_REDIS}/11")


@pytest.fixture(scope="session")
def redis_cluster() -> Iterator[LocalCluster]:
    """The 3-master cluster the store suite also uses (one per session)."""
    missing = tools_missing()
    if missing:
        pytest.skip(f"no local Redis Cluster: {missing}")
    with shared_cluster() as made:
        yield made


@pytest.fixture
def queue_redis() -> Iterator[redis.Redis]:
    """The standalone broker's database, flushed before and after."""
    client = redis.Redis.from_url(QUEUE_URL)
    try:
        client.ping()
    except redis.ConnectionError as exc:
        pytest.skip(f"no Redis answers at {QUEUE_URL} ({exc}); run tests/ensure-redis.sh")
    client.flushdb()
    yield client
    client.flushdb()
    client.close()
