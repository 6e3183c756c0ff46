"""Stores over the suite's Redis backends: fakeredis, the real Redis and a
local Redis Cluster."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import redis

from service.devstack import LocalCluster, shared_cluster, tools_missing
from service.store import EventStore


@pytest.fixture(scope="session")
def redis_cluster() -> Iterator[LocalCluster]:
    """A 3-master Redis Cluster of local processes, for the whole session."""
    missing = tools_missing()
    if missing:
        pytest.skip(f"no local Redis Cluster: {missing}")
    with shared_cluster() as made:
        yield made


@pytest.fixture(scope="session")
def _cluster_client(redis_cluster: LocalCluster) -> Iterator[redis.RedisCluster]:
    client = redis_cluster.client()
    yield client
    client.close()


@pytest.fixture
def cluster_redis(_cluster_client: redis.RedisCluster) -> Iterator[redis.RedisCluster]:
    """A cluster client, every master flushed before and after the test."""
    _cluster_client.flushall()
    yield _cluster_client
    _cluster_client.flushall()


@pytest.fixture(
    params=[
        "fake",
        pytest.param("real", marks=pytest.mark.redis),
        pytest.param("cluster", marks=pytest.mark.cluster),
    ]
)
def redis_client(request: pytest.FixtureRequest) -> redis.Redis:
    """Each store test using this runs on fakeredis, the real Redis and the cluster."""
    name = {"fake": "fake_redis", "real": "real_redis", "cluster": "cluster_redis"}
    client: redis.Redis = request.getfixturevalue(name[request.param])
    return client


@pytest.fixture
def store(redis_client: redis.Redis) -> EventStore:
    """An event store over each backend in turn."""
    return EventStore(redis_client)


@pytest.fixture
def real_store(real_redis: redis.Redis) -> EventStore:
    return EventStore(real_redis)
