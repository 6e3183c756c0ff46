"""Stores over the suite's Redis fixtures."""

from __future__ import annotations

import pytest
import redis

from service.store import EventStore


@pytest.fixture
def store(redis_client: redis.Redis) -> EventStore:
    """An event store over fakeredis, then over the real Redis."""
    return EventStore(redis_client)


@pytest.fixture
def real_store(real_redis: redis.Redis) -> EventStore:
    return EventStore(real_redis)
