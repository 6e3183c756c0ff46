"""Caps on open live streams (per address, per game, per process) and view lines."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from werkzeug.test import TestResponse

from service.api.streamcaps import StreamSlots
from service.config import load_settings
from service.games import GameService

from .conftest import make_app
from .helpers import Api, bearer

NDJSON = {"Accept": "application/x-ndjson"}


@pytest.fixture
def capped() -> Flask:
    settings = load_settings(
        rate_limit="100000/second",
        stream_keepalive_s=0.05,
        streams_per_address=2,
        streams_per_game=3,
        streams_max=5,
        streams_spectator_share=0.8,
    )
    return make_app(settings, RATELIMIT_ENABLED=False)


def open_stream(app: Flask, game_id: str, address: str, **headers: str) -> TestResponse:
    client = app.test_client()
    return client.get(
        f"/games/{game_id}/events",
        headers={**NDJSON, **headers},
        environ_base={"REMOTE_ADDR": address},
        buffered=False,
    )


def new_game(app: Flask) -> str:
    r = app.test_client().post("/games", json={"game": "murlan"})
    game_id: str = r.get_json()["game_id"]
    return game_id


def assert_capped(r: TestResponse, scope: str, limit: int | None = None) -> dict[str, Any]:
    assert r.status_code == 429
    assert r.headers["Content-Type"] == "application/problem+json"
    problem: dict[str, Any] = json.loads(r.get_data())
    assert problem["type"].endswith("/too-many-streams")
    assert problem["scope"] == scope and "live streams" in problem["detail"]
    assert limit is None or problem["limit"] == limit
    # the way on: poll the view meanwhile, and the stream again after Retry-After
    assert problem["fallback"] == "poll"
    assert problem["poll_after_s"] == 5 and problem["retry_after_s"] == 30
    assert r.headers["Retry-After"] == "30"
    return problem


def test_the_caps_give_429_and_a_closed_stream_frees_its_slot(capped: Flask) -> None:
    slots: StreamSlots = capped.extensions["cardroom_streams"]
    assert slots.spectators_total == 4  # 0.8 of 5: one slot is kept for seats
    one, two = new_game(capped), new_game(capped)
    held = [open_stream(capped, one, "10.0.0.1") for _ in range(2)]
    assert all(r.status_code == 200 for r in held)
    assert_capped(open_stream(capped, one, "10.0.0.1"), "address", 2)
    held.append(open_stream(capped, one, "10.0.0.2"))
    assert held[-1].status_code == 200
    assert_capped(open_stream(capped, one, "10.0.0.3"), "game", 3)
    held.append(open_stream(capped, two, "10.0.0.3"))
    assert held[-1].status_code == 200
    assert_capped(open_stream(capped, two, "10.0.0.4"), "spectators", 4)
    assert slots.open == slots.spectators == 4
    # a JSON page is no stream: never capped
    page = capped.test_client().get(f"/games/{two}/events")
    assert page.status_code == 200
    held.pop(0).close()
    assert slots.open == 3
    again = open_stream(capped, one, "10.0.0.1")
    assert again.status_code == 200
    again.close()
    for r in held:
        r.close()
    assert slots.open == 0


def lines(r: TestResponse) -> Iterator[dict[str, Any]]:
    buffer = b""
    for chunk in r.response:
        buffer += chunk if isinstance(chunk, bytes) else chunk.encode()
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            yield json.loads(line)


def test_views_true_sends_the_seat_view_after_each_batch(
    app: Flask, api: Api, service: GameService
) -> None:
    table = api.table("hazari")
    token = table.tokens[0]
    r = app.test_client().get(
        f"/games/{table.game_id}/events?views=true",
        headers={**NDJSON, **bearer(token)},
        buffered=False,
    )
    assert r.status_code == 200
    stream = lines(r)
    first = next(stream)
    assert first["kind"] == "view" and first["view"]["seat"] == 0
    start = first["version"]
    move = first["view"]["legal_moves"][0]
    assert api.move(table.game_id, token, move).status_code == 201
    seen: list[dict[str, Any]] = []
    for line in stream:
        if line["kind"] == "keepalive":
            continue
        seen.append(line)
        if line["kind"] == "view":
            break
    r.close()
    assert [x["kind"] for x in seen][:-1] == ["event"] * (len(seen) - 1)
    view = seen[-1]["view"]
    assert seen[-1]["version"] == view["version"] > start
    # exactly what GET /games/{id} answers this seat, its own hand and legal moves included
    assert view == api.view(table.game_id, token)
    assert view["hand"] and view["seat"] == 0


def test_without_views_the_stream_sends_events_only(app: Flask, api: Api) -> None:
    table = api.table("hazari")
    token = table.tokens[0]
    r = app.test_client().get(
        f"/games/{table.game_id}/events", headers={**NDJSON, **bearer(token)}, buffered=False
    )
    stream = lines(r)
    first = next(stream)
    assert first["kind"] == "view"
    api.move(table.game_id, token, first["view"]["legal_moves"][0])
    kinds = []
    for line in stream:
        kinds.append(line["kind"])
        if line["kind"] == "keepalive":
            break
    r.close()
    assert "event" in kinds and "view" not in kinds
