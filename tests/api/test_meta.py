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
        ("/players", "post"),
        ("/players/me/seats", "get"),
        ("/players/me/events", "get"),
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


def test_every_operation_has_an_example_and_its_headers(client: FlaskClient) -> None:
    doc = client.get("/openapi.json").get_json()
    for path, ops in doc["paths"].items():
        for method, op in ops.items():
            contents = [
                c for r in op["responses"].values() for c in r.get("content", {}).values()
            ] + list(op.get("requestBody", {}).get("content", {}).values())
            params = [p for p in op.get("parameters", []) if "example" in p]
            assert any("example" in c for c in contents) or params, (method, path)
    create = doc["paths"]["/games"]["post"]
    sent = {p["name"] for p in create["parameters"] if p["in"] == "header"}
    assert {"Client-Secret", "Client-Id", "X-Request-Id"} <= sent
    got = create["responses"]["201"]["headers"]
    assert {"Location", "Idempotent-Replayed", "X-Request-Id"} <= set(got)
    assert "Retry-After" in create["responses"]["429"]["headers"]
    moved = doc["paths"]["/games/{game_id}/moves"]["post"]["responses"]["201"]["headers"]
    assert "Idempotent-Replayed" in moved
    page = doc["paths"]["/games/{game_id}/events"]["get"]
    assert "If-None-Match" in {p["name"] for p in page["parameters"]}
    assert {"ETag", "Cache-Control"} <= set(page["responses"]["200"]["headers"])
    assert "304" in page["responses"]
    stream = page["responses"]["200"]["content"]["application/x-ndjson"]
    assert stream["itemSchema"] == {"$ref": "#/components/schemas/StreamLine"}
    players = doc["paths"]["/players/me/events"]["get"]["responses"]["200"]["content"]
    line = players["application/x-ndjson"]["itemSchema"]
    assert line == {"$ref": "#/components/schemas/PlayerStreamLine"}
    kinds = {
        ref["$ref"].rsplit("/", 1)[1] for ref in doc["components"]["schemas"]["StreamLine"]["oneOf"]
    }
    assert "MessageLine" in kinds and "SeatLine" not in kinds
    assert doc["paths"]["/games/{game_id}/moves"]["post"]["security"] == [{"seatToken": []}]


def test_request_bodies_carry_no_defaults(client: FlaskClient) -> None:
    schemas = client.get("/openapi.json").get_json()["components"]["schemas"]
    for name in ("CreateGameRequest", "TakeSeatRequest", "MoveRequest", "BotSeat"):
        for prop, spec in schemas[name]["properties"].items():
            assert "default" not in spec, (name, prop)
        assert set(schemas[name].get("required", [])) <= {"game", "name", "move", "seat"}


def test_the_deprecated_names_are_marked(client: FlaskClient) -> None:
    schemas = client.get("/openapi.json").get_json()["components"]["schemas"]
    for table in ("HazariTable", "MurlanTable", "AziTable"):
        assert schemas[table]["properties"]["to_act"]["deprecated"] is True
    assert schemas["MurlanTable"]["properties"]["table"]["deprecated"] is True
    assert "deprecated" not in schemas["MurlanTable"]["properties"]["to_beat"]


def test_the_games_document_gives_rank_orders_and_notation(client: FlaskClient) -> None:
    r = client.get("/games/kinds")
    assert r.status_code == 200
    games = {g["game"]: g for g in r.get_json()["games"]}
    assert set(games) == {"hazari", "azi", "murlan"}
    assert "".join(games["murlan"]["cards"]["rank_order"]) == "3456789TJQKA2BJRJ"
    assert "".join(games["azi"]["cards"]["rank_order"]) == "6789TJQKA"
    assert "".join(games["hazari"]["cards"]["rank_order"]) == "23456789TJQKA"
    assert games["murlan"]["actions"] == ["play", "pass", "give_back"]
    assert games["azi"]["min_seats"] == 2 and games["azi"]["max_seats"] == 6
    assert games["hazari"]["options"] == {"target": 1000, "turn_timeout_s": 60, "bot_delay_s": None}
    # a game's id is never "kinds": the document is not a game's view
    assert client.get("/games/kinds").get_json() == r.get_json()
