"""Fixtures of the API tests: the app on fakeredis, and a live server on the real Redis."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.serving import BaseWSGIServer, make_server

from service.api import create_app
from service.config import Settings, load_settings
from service.games import GameService
from service.runtime import Runtime
from tests.testredis import TEST_REDIS

from .helpers import Api

REAL_REDIS_URL = f"{TEST_REDIS}/14"


def make_app(settings: Settings, **config: Any) -> Flask:
    return create_app(settings, Runtime.from_settings(settings), {"TESTING": True, **config})


@pytest.fixture
def settings() -> Settings:
    return load_settings(rate_limit="100000/second", stream_keepalive_s=0.2)


@pytest.fixture
def app(settings: Settings) -> Flask:
    return make_app(settings, RATELIMIT_ENABLED=False)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def service(app: Flask) -> GameService:
    svc: GameService = app.extensions["cardroom"]
    return svc


@pytest.fixture
def api(client: FlaskClient, service: GameService) -> Api:
    return Api(client, service)


@pytest.fixture
def api_redis() -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(REAL_REDIS_URL)
    try:
        client.ping()
    except redis.ConnectionError:
        pytest.skip(f"no Redis at {TEST_REDIS} (run tests/ensure-redis.sh)")
    client.flushdb()
    yield client
    client.flushdb()
    client.close()


class LiveServer:
    def __init__(self, app: Flask) -> None:
        self.app = app
        self.server: BaseWSGIServer = make_server("127.0.0.1", 0, app, threaded=True)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def service(self) -> GameService:
        svc: GameService = self.app.extensions["cardroom"]
        return svc


@pytest.fixture
def live(api_redis: redis.Redis) -> Iterator[LiveServer]:
    """The app served over HTTP by a threaded server, on the real Redis (db 14)."""
    settings = load_settings(
        redis_url=REAL_REDIS_URL,
        rate_limit="100000/second",
        limit_moves="100000/second",
        stream_keepalive_s=0.2,
    )
    server = LiveServer(make_app(settings))
    server.thread.start()
    yield server
    server.server.shutdown()
    server.thread.join(5)
