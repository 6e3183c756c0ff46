"""/openapi.json, /docs, /healthz and the error handler's catch-all."""

from __future__ import annotations

import re

import pytest
from flask.testing import FlaskClient
from rq import Worker

from service.games import GameService
from tests.testredis import client_of

from .helpers import Api


def test_openapi_lists_every_endpoint(client: FlaskClient) -> None:
    doc = client.get("/openapi.json").get_json()
    assert doc["openapi"].startswith("3.1")
    paths = doc["paths"]
    for path, method in [
        ("/games", "post"),
        ("/games", "get"),
        ("/games/{game_id}", "get"),
        ("/games/{game_id}/seats", "post"),
        ("/games/{game_id}/moves", "post"),
        ("/games/{game_id}/events", "get"),
        ("/games/{game_id}/replay", "get"),
        ("/games/{game_id}/verify", "get"),
        ("/healthz", "get"),
        ("/readyz", "get"),
        ("/livez", "get"),
    ]:
        assert method in paths[path], (path, method)
    moves = paths["/games/{game_id}/moves"]["post"]
    assert {"201", "401", "403", "404", "409", "422", "429"} <= set(moves["responses"])
    assert "MurlanPlay" in doc["components"]["schemas"]


def test_docs_page_is_self_contained(client: FlaskClient) -> None:
    r = client.get("/docs")
    assert r.status_code == 200 and r.mimetype == "text/html"
    html = r.get_data(as_text=True)
    assert "/games/{game_id}/moves" in html
    assert not re.search(r"<(script|link|img)[^>]+(src|href)=\"?https?:", html)


def test_healthz(
    client: FlaskClient, service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert client.get("/healthz").get_json() == {"status": "ok", "redis": "ok"}

    def down() -> None:
        raise ConnectionError("connection refused by 10.0.0.7:6379")

    monkeypatch.setattr(client_of(service.store), "ping", down)
    r = client.get("/healthz")
    assert r.status_code == 503 and "10.0.0.7" not in r.get_data(as_text=True)


def test_readyz_and_livez(
    client: FlaskClient, service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    Worker([service.runtime.queue], connection=service.runtime.queue_redis).register_birth()
    assert client.get("/readyz").get_json() == {
        "status": "ready",
        "redis": "ok",
        "writes": "ok",
        "scripts": "ok",
        "workers": 1,
    }
    assert client.get("/livez").get_json() == {"status": "ok"}

    def down(*args: object, **kwargs: object) -> None:
        raise ConnectionError("connection refused by 10.0.0.7:6379")

    monkeypatch.setattr(client_of(service.store), "set", down)
    monkeypatch.setattr(client_of(service.store), "ping", down)
    r = client.get("/readyz")
    assert r.status_code == 503 and "10.0.0.7" not in r.get_data(as_text=True)
    assert client.get("/livez").status_code == 200  # asks Redis nothing


def test_unknown_routes_are_problems(client: FlaskClient) -> None:
    r = client.get("/nowhere")
    assert r.status_code == 404 and r.mimetype == "application/problem+json"
    assert r.get_json()["status"] == 404


def test_a_bug_is_a_generic_500(
    client: FlaskClient, service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(game_id: str) -> None:
        raise RuntimeError("internal detail: key cardroom:{x}:secret = 00ff")

    monkeypatch.setattr(service, "load", broken)
    r = client.get("/games/abc/events")
    assert r.status_code == 500 and r.mimetype == "application/problem+json"
    text = r.get_data(as_text=True)
    assert "internal detail" not in text and "Traceback" not in text and "00ff" not in text


def test_an_unreachable_store_is_a_503_with_retry_after(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    import redis as redis_lib

    created = api.create("murlan")

    def down(*args: object, **kwargs: object) -> None:
        raise redis_lib.exceptions.ConnectionError("Connection refused")

    monkeypatch.setattr(client_of(api.service.store), "execute_command", down)
    r = api.client.get(f"/games/{created['game_id']}")
    assert r.status_code == 503 and r.mimetype == "application/problem+json"
    assert r.headers["Retry-After"] == "1"
    assert "Connection refused" not in r.get_data(as_text=True)
