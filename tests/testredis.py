"""Where the tests find the real Redis.

``CARDROOM_TEST_REDIS`` (default ``redis://127.0.0.1:6379``, no database):
each suite keeps to a database of its own there and flushes only that one,
so a run can be pointed at a private ``redis-server`` as a whole.

Under pytest-xdist (``pytest -n N``, what ``make test`` runs) the workers
would flush each other's databases there, so each worker starts a
``redis-server`` of its own instead (no persistence, a free port, stopped
when the worker exits) the first time anything imports this module, and
exports its URL as ``CARDROOM_TEST_REDIS`` to the processes it starts
(without ``redis-server`` installed it keeps to ``CARDROOM_TEST_REDIS``, where
the real-Redis tests find nothing and skip, saying why).
``pytest -n 0`` (one process) keeps to ``CARDROOM_TEST_REDIS``.
"""

from __future__ import annotations

import os
from typing import Any, Final

DEFAULT: Final = "redis://127.0.0.1:6379"
_own: list[Any] = []
"""This worker's own server (a ``service.devstack.LocalCluster``), when it started one."""


def _test_redis() -> str:
    if os.environ.get("PYTEST_XDIST_WORKER"):
        from service.devstack import start_standalone, tools_missing  # only a worker starts one

        if tools_missing():  # no redis-server here: the real-Redis tests say so and skip
            return os.environ.get("CARDROOM_TEST_REDIS", DEFAULT).rstrip("/")
        _own.append(start_standalone())
        os.environ["CARDROOM_TEST_REDIS"] = _own[0].url
        return _own[0].url
    return os.environ.get("CARDROOM_TEST_REDIS", DEFAULT).rstrip("/")


TEST_REDIS: Final = _test_redis()


def client_of(store: Any) -> Any:
    """The Redis client under ``store`` (an :class:`~service.store.EventStore`), for
    the tests that look at or break the stored keys themselves: the service
    reaches Redis only through the store's named methods."""
    return store._redis
