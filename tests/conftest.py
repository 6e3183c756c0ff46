"""Redis fixtures: an in-process fakeredis and the real Redis (a dedicated
database, flushed before and after each test).

``CARDROOM_TEST_REDIS`` picks the real Redis (default
``redis://127.0.0.1:6379``, database 15; ``CARDROOM_TEST_REDIS_URL`` names
the whole URL); tests that need it are skipped, saying why,
only when no Redis answers there.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import fakeredis
import pytest
import redis

# ``tests.testredis`` must import the same way under ``pytest`` as under ``python -m pytest``.
ROOT = str(Path(__file__).resolve().parents[1])
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from tests.testredis import TEST_REDIS  # noqa: E402 (needs ROOT on the path)

REAL_REDIS_URL = os.environ.get("CARDROOM_TEST_REDIS_URL", f"{TEST_REDIS}/15")


@pytest.fixture
def fake_redis() -> Iterator[redis.Redis]:
    """A fresh in-process Redis (Lua included), shared with nobody."""
    client = fakeredis.FakeRedis(server=fakeredis.FakeServer())
    yield client
    client.close()


@pytest.fixture(scope="session")
def _real_redis_session() -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(REAL_REDIS_URL)
    try:
        client.ping()
    except redis.ConnectionError as exc:
        pytest.skip(f"no Redis answers at {REAL_REDIS_URL} ({exc}); run tests/ensure-redis.sh")
    yield client
    client.close()


@pytest.fixture
def real_redis(_real_redis_session: redis.Redis) -> Iterator[redis.Redis]:
    """The real Redis, its test database flushed before and after the test."""
    _real_redis_session.flushdb()
    yield _real_redis_session
    _real_redis_session.flushdb()


@pytest.fixture(params=["fake", pytest.param("real", marks=pytest.mark.redis)])
def redis_client(request: pytest.FixtureRequest) -> redis.Redis:
    """Each test using this runs twice: on fakeredis and on the real Redis."""
    name = "fake_redis" if request.param == "fake" else "real_redis"
    client: redis.Redis = request.getfixturevalue(name)
    return client


WORKERS_PER_CORE = 2
"""Most of the suite's time is spent waiting (on worker processes, servers, a
browser, bots), not computing: ``-n auto`` (the default, see ``pyproject.toml``)
runs this many workers per core. ``PYTEST_XDIST_AUTO_NUM_WORKERS`` overrides it."""


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # xdist's own hook reads it
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return WORKERS_PER_CORE * (cores or 1)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under xdist, the ``slow`` and ``stats`` tests first (every worker collects the
    same order, and they are handed out one by one in it): a test of minutes
    handed out last would keep one worker busy after the rest are done. In one
    process the order stays the files' own."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        items.sort(key=lambda item: not any(item.get_closest_marker(m) for m in LONG))


LONG = ("slow", "stats")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """In CI (``CI`` set) a skip is a failure: everything the tests need is set up there."""
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    if os.environ.get("CI") and report.skipped:
        report.outcome = "failed"
        report.longrepr = f"skipped in CI, where nothing may be: {report.longrepr}"
