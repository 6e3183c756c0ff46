"""The probes (docs/operations.md, "Health probes"): ``/livez`` asks nothing of
Redis; ``/readyz`` names the check that failed, and for the API needs a
worker whose heartbeat is recent, RQ's own (a real RQ worker registered on
the test Redis) or, in the embedded mode, its worker thread's."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import redis
from flask import Flask
from rq import Worker
from rq.utils import utcformat

from service.config import load_settings
from service.devstack import wait_for
from service.runtime import Runtime
from tests.testredis import client_of
from workers.embedded import EmbeddedWorker

from .conftest import REAL_REDIS_URL, make_app


def problem(r: Any, check: str) -> dict[str, Any]:
    assert r.status_code == 503 and r.mimetype == "application/problem+json", r.get_json()
    body: dict[str, Any] = r.get_json()
    assert body["check"] == check, body
    return body


@pytest.fixture
def real_app(api_redis: redis.Redis) -> Flask:
    settings = load_settings(redis_url=REAL_REDIS_URL, worker_heartbeat_max_age_s=30)
    return make_app(settings, RATELIMIT_ENABLED=False)


def runtime_of(app: Flask) -> Runtime:
    runtime: Runtime = app.extensions["cardroom_runtime"]
    return runtime


def register_worker(runtime: Runtime, beat_age_s: float = 0) -> Worker:
    """A real RQ worker's registration on the app's queue, its last heartbeat
    ``beat_age_s`` ago."""
    worker = Worker([runtime.queue], connection=runtime.queue_redis)
    worker.register_birth()
    if beat_age_s:
        beat = datetime.now(UTC) - timedelta(seconds=beat_age_s)
        runtime.queue_redis.hset(worker.key, "last_heartbeat", utcformat(beat))
    return worker


@pytest.mark.redis
def test_readyz_needs_a_worker_heartbeat_fresher_than_the_setting(real_app: Flask) -> None:
    client, runtime = real_app.test_client(), runtime_of(real_app)
    body = problem(client.get("/readyz"), "workers")
    assert "30 s" in body["detail"]
    stale = register_worker(runtime, beat_age_s=31)  # registered, but silent too long
    problem(client.get("/readyz"), "workers")
    fresh = register_worker(runtime)
    r = client.get("/readyz")
    assert r.status_code == 200, r.get_json()
    assert r.get_json() == {
        "status": "ready",
        "redis": "ok",
        "writes": "ok",
        "scripts": "ok",
        "workers": 1,
    }
    fresh.register_death()
    problem(client.get("/readyz"), "workers")
    stale.heartbeat()  # it beats again
    assert client.get("/readyz").get_json()["workers"] == 1


@pytest.mark.redis
def test_readyz_loads_the_scripts_a_restarted_redis_lost(
    real_app: Flask, api_redis: redis.Redis
) -> None:
    register_worker(runtime_of(real_app))
    client = real_app.test_client()
    api_redis.script_flush()  # as a restart does: the script cache is not persisted
    assert client.get("/readyz").status_code == 200
    store = real_app.extensions["cardroom"].store
    assert store.health.load_scripts() == 0  # all there now


def test_readyz_names_the_scripts_when_redis_will_not_hold_them(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    register_worker(runtime_of(app))

    def refused(*args: object) -> None:
        raise redis.exceptions.NoPermissionError("this user has no permissions to run 'script'")

    monkeypatch.setattr(client_of(app.extensions["cardroom"].store), "script_exists", refused)
    body = problem(app.test_client().get("/readyz"), "scripts")
    assert "permissions" not in body["detail"]


def test_readyz_names_redis_when_it_does_not_answer(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    def down(*args: object, **kwargs: object) -> None:
        raise redis.exceptions.ConnectionError("Connection refused")

    monkeypatch.setattr(client_of(app.extensions["cardroom"].store), "set", down)
    problem(app.test_client().get("/readyz"), "redis")


def test_livez_asks_redis_nothing(app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    def down(*args: object, **kwargs: object) -> None:
        raise AssertionError("/livez sent a Redis command")

    monkeypatch.setattr(client_of(app.extensions["cardroom"].store), "execute_command", down)
    monkeypatch.setattr(runtime_of(app).queue_redis, "execute_command", down)
    r = app.test_client().get("/livez")
    assert r.status_code == 200 and r.get_json() == {"status": "ok"}


def test_the_stream_servers_readyz_needs_no_worker() -> None:
    app = make_app(load_settings(), STREAMS_ONLY=True)
    r = app.test_client().get("/readyz")
    assert r.status_code == 200, r.get_json()
    assert "workers" not in r.get_json()


def test_embedded_readyz_follows_the_worker_thread() -> None:
    """``cardroom serve``'s embedded mode: its worker thread is the worker."""
    app = make_app(load_settings(worker_heartbeat_max_age_s=2))
    client = app.test_client()
    problem(client.get("/readyz"), "workers")  # not started yet
    embedded = EmbeddedWorker(runtime_of(app))
    embedded.start()
    try:
        wait_for(
            lambda: client.get("/readyz").status_code == 200,
            time.monotonic() + 10,
            lambda: f"/readyz: {client.get('/readyz').get_json()}",
        )
    finally:
        embedded.stop()
    problem(client.get("/readyz"), "workers")  # its thread has ended
