"""Fixtures of the reliability tests.

The bad-input and security tests drive the app in this process on fakeredis
(no network, nothing shared), so that every key the service keeps can be
dumped before and after a request: a rejected request must change none. The
fault tests start a whole stack of their own processes (``service.devstack``)
on a private Redis with the deploy's AOF settings.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from service.api import create_app
from service.config import Settings, load_settings
from service.engines import table
from service.games import GameService
from service.runtime import Runtime
from tests.testredis import client_of

Dump = dict[bytes, Any]


def make_app(settings: Settings, **config: Any) -> Flask:
    return create_app(settings, Runtime.from_settings(settings), {"TESTING": True, **config})


@pytest.fixture
def app() -> Flask:
    # No worker runs here: the follow-up markers and drain slots a request leaves are
    # leased for the longest time allowed, so none expires while a test compares
    # the keys before and after a request (an expiry is not a request's change).
    settings = load_settings(stream_keepalive_s=0.2, bot_delay_s=0, followup_lease_s=300)
    return make_app(settings, RATELIMIT_ENABLED=False)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def service(app: Flask) -> GameService:
    svc: GameService = app.extensions["cardroom"]
    return svc


def bearer(token: str | None) -> dict[str, str]:
    return {} if token is None else {"Authorization": f"Bearer {token}"}


@dataclass
class Seated:
    """A table in play: its id, its seats' tokens, and the service behind it."""

    game_id: str
    tokens: list[str]
    service: GameService
    client: FlaskClient

    @property
    def state(self) -> table.Table:
        return self.service.load(self.game_id)

    def hand(self, seat: int) -> list[str]:
        """The cards ``seat`` holds, from the engine itself (not from the HTTP layer)."""
        state = self.state
        return [str(c) for c in state.engine.view(state.engine_state, seat).get("hand") or []]

    def to_act(self) -> list[int]:
        state = self.state
        return list(state.engine.to_act(state.engine_state))

    def idle(self) -> int:
        """A seat that may not act now."""
        acting = set(self.to_act())
        return next(s for s in range(len(self.tokens)) if s not in acting)

    def view(self, seat: int) -> dict[str, Any]:
        r = self.client.get(f"/games/{self.game_id}", headers=bearer(self.tokens[seat]))
        assert r.status_code == 200, r.get_json()
        data: dict[str, Any] = r.get_json()
        return data

    def move(self, seat: int, body: Any, **headers: str) -> TestResponse:
        return self.client.post(
            f"/games/{self.game_id}/moves",
            json=body,
            headers={**bearer(self.tokens[seat]), **headers},
        )


def seat_table(
    client: FlaskClient,
    service: GameService,
    game: str,
    options: dict[str, Any] | None = None,
    seats: int | None = None,
) -> Seated:
    body: dict[str, Any] = {"game": game, "options": options or {}}
    if seats is not None:
        body["seats"] = seats
    r = client.post("/games", json=body)
    assert r.status_code == 201, r.get_json()
    game_id = r.get_json()["game_id"]
    tokens = []
    for n in range(r.get_json()["seats"]):
        taken = client.post(f"/games/{game_id}/seats", json={"name": f"p{n}"})
        assert taken.status_code == 201, taken.get_json()
        tokens.append(taken.get_json()["token"])
    service.advance(game_id)
    return Seated(game_id, tokens, service, client)


@pytest.fixture
def murlan(client: FlaskClient, service: GameService) -> Seated:
    return seat_table(client, service, "murlan")


@pytest.fixture
def hazari(client: FlaskClient, service: GameService) -> Seated:
    return seat_table(client, service, "hazari", {"target": 360})


@pytest.fixture
def azi(client: FlaskClient, service: GameService) -> Seated:
    return seat_table(client, service, "azi", {"buy_in": 100, "ante": 10, "min_bet": 10}, 3)


def dump(service: GameService) -> Dump:
    """Every key the service keeps (``cardroom:*``) with its whole value, but the
    stream hub's wake-up keys: a live stream opened wakes its process's reader
    (:mod:`service.store.tails`), which is no game's state."""
    redis = client_of(service.store)
    out: Dump = {}
    for key in sorted(redis.scan_iter(match="cardroom:*")):
        if key.startswith(b"cardroom:{hub:") and key.endswith(b"}:wake"):
            continue
        kind = redis.type(key)
        if kind == b"stream":
            out[key] = redis.xrange(key)
        elif kind == b"hash":
            out[key] = redis.hgetall(key)
        elif kind == b"string":
            out[key] = redis.get(key)
        elif kind == b"zset":
            out[key] = redis.zrange(key, 0, -1, withscores=True)
        elif kind == b"set":
            out[key] = sorted(redis.smembers(key))
        elif kind == b"list":
            out[key] = redis.lrange(key, 0, -1)
        else:
            out[key] = kind
    return out


@pytest.fixture
def rng() -> Iterator[random.Random]:
    yield random.Random(20261129)
