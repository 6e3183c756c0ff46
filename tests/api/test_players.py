"""Player keys, the seats bound to them, and the player's one live stream.

The stream tests serve the app over HTTP (a threaded server on the real
Redis) and read the stream from a thread while seats are bound and moves
made, as a bot host running many games does.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from flask.testing import FlaskClient

from schemas.api import PLAYER_STREAM_LINE
from service.config import load_settings

from .conftest import REAL_REDIS_URL, LiveServer, make_app

NDJSON = {"Accept": "application/x-ndjson"}


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def new_player(client: FlaskClient) -> tuple[str, str]:
    r = client.post("/players")
    assert r.status_code == 201, r.get_json()
    body = r.get_json()
    return body["player_id"], body["player_key"]


def test_a_player_key_binds_seats_and_lists_them_newest_first(client: FlaskClient) -> None:
    player_id, key = new_player(client)
    assert client.post("/players", json={}).status_code == 201
    assert client.post("/players", json={"name": "x"}).status_code == 422
    first = client.post("/games", json={"game": "murlan"}).get_json()["game_id"]
    second = client.post("/games", json={"game": "azi", "seats": 2}).get_json()["game_id"]
    bound = client.post(f"/games/{first}/seats", json={"name": "bot host"}, headers=auth(key))
    assert bound.status_code == 201 and set(bound.get_json()) >= {"seat", "token"}
    client.post(f"/games/{first}/seats", json={"name": "someone else"})  # unbound
    later = client.post(f"/games/{second}/seats", json={"name": "host"}, headers=auth(key))
    listed = client.get("/players/me/seats", headers=auth(key))
    assert listed.status_code == 200
    body = listed.get_json()
    assert body["player_id"] == player_id
    assert [(s["game_id"], s["seat"]) for s in body["seats"]] == [
        (second, later.get_json()["seat"]),
        (first, bound.get_json()["seat"]),
    ]
    newest, oldest = body["seats"]
    assert newest["game"] == "azi" and oldest["game"] == "murlan"
    assert oldest["token"] == bound.get_json()["token"]
    assert oldest["status"] == "seating" and oldest["version"] == 3
    # the listed token is the seat's: it reads the seat's own view
    view = client.get(f"/games/{first}", headers=auth(oldest["token"])).get_json()
    assert view["seat"] == oldest["seat"]


def test_an_unknown_player_key_is_refused_and_changes_nothing(client: FlaskClient) -> None:
    gid = client.post("/games", json={"game": "murlan"}).get_json()["game_id"]
    before = client.get(f"/games/{gid}").get_json()["version"]
    refused = client.post(f"/games/{gid}/seats", json={"name": "x"}, headers=auth("crp_nope"))
    assert refused.status_code == 401
    assert refused.mimetype == "application/problem+json"
    assert client.get(f"/games/{gid}").get_json()["version"] == before
    for path in ("/players/me/seats", "/players/me/events"):
        assert client.get(path, headers={**NDJSON, **auth("crp_nope")}).status_code == 401
        assert client.get(path, headers=NDJSON).status_code == 401


def test_bad_cursors_are_refused_naming_after(client: FlaskClient) -> None:
    _, key = new_player(client)
    for bad in ("nocolon", "g:1,", "g:-1", "g:x"):
        r = client.get(f"/players/me/events?after={bad}", headers={**NDJSON, **auth(key)})
        assert r.status_code in (400, 422), bad
        assert "after" in r.get_data(as_text=True)


class Stream:
    """A live stream read line by line in a thread."""

    def __init__(self, url: str, path: str, headers: dict[str, str]) -> None:
        self.lines: list[dict[str, Any]] = []
        self.status: int | None = None
        self._opened = threading.Event()
        self._stop = False
        self._thread = threading.Thread(target=self._read, args=(url, path, headers), daemon=True)
        self._thread.start()
        assert self._opened.wait(10), "the stream did not answer"

    def _read(self, url: str, path: str, headers: dict[str, str]) -> None:
        with (
            httpx.Client(base_url=url, timeout=30) as own,
            own.stream("GET", path, headers=headers) as r,
        ):
            self.status = r.status_code
            self._opened.set()
            for raw in r.iter_lines():
                if self._stop:
                    return
                if raw:
                    line = json.loads(raw)
                    PLAYER_STREAM_LINE.validate_python(line)  # the contract's model of it
                    self.lines.append(line)

    def until(self, done: Callable[[list[dict[str, Any]]], bool], timeout_s: float = 10) -> None:
        deadline = time.monotonic() + timeout_s
        while not done(self.lines):
            assert time.monotonic() < deadline, f"not seen in time: {self.lines[-5:]}"
            time.sleep(0.02)

    def close(self) -> None:
        self._stop = True


@pytest.fixture
def http(live: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=live.url, timeout=10) as client:
        yield client


def play_one(http: httpx.Client, live: LiveServer, gid: str, tokens: list[str]) -> None:
    """One move by a seat to act (the workers' steps taken first)."""
    live.service.advance(gid)
    view = http.get(f"/games/{gid}").json()
    seat = view["to_act"][0]
    mine = http.get(f"/games/{gid}", headers=auth(tokens[seat])).json()
    r = http.post(
        f"/games/{gid}/moves", json={"move": mine["legal_moves"][0]}, headers=auth(tokens[seat])
    )
    assert r.status_code == 201, r.text


def full_table(http: httpx.Client, key: str, game: str = "murlan") -> tuple[str, list[str]]:
    gid = http.post("/games", json={"game": game}).json()["game_id"]
    tokens = [
        http.post(f"/games/{gid}/seats", json={"name": f"p{i}"}, headers=auth(key)).json()["token"]
        for i in range(4)
    ]
    return gid, tokens


def of(lines: list[dict[str, Any]], gid: str, kind: str) -> list[dict[str, Any]]:
    return [line for line in lines if line.get("game_id") == gid and line["kind"] == kind]


def test_one_player_stream_follows_many_games_and_seats_bound_later(
    live: LiveServer, http: httpx.Client
) -> None:
    key = http.post("/players").json()["player_key"]
    first, first_tokens = full_table(http, key)
    stream = Stream(live.url, "/players/me/events", {**NDJSON, **auth(key)})
    try:
        assert stream.status == 200
        stream.until(lambda lines: bool(of(lines, first, "view")))
        view = of(stream.lines, first, "view")[0]
        assert view["view"]["seat"] == 0 and "hand" in view["view"]  # the first-bound seat's
        second, second_tokens = full_table(http, key)  # bound after the stream opened
        stream.until(lambda lines: bool(of(lines, second, "view")))
        seat_line = of(stream.lines, second, "seat")[0]
        assert seat_line == {
            "kind": "seat",
            "game_id": second,
            "game": "murlan",
            "seat": 0,
            "version": seat_line["version"],
        }
        for gid, tokens in ((first, first_tokens), (second, second_tokens), (first, first_tokens)):
            play_one(http, live, gid, tokens)
        for gid in (first, second):
            now = live.service.store.version(gid)
            stream.until(
                lambda lines, g=gid, v=now: any(e["version"] == v for e in of(lines, g, "event"))
            )
            shown = [e["version"] for e in of(stream.lines, gid, "event")]
            opened_at = of(stream.lines, gid, "view")[0]["version"]
            assert shown == list(range(opened_at + 1, now + 1))  # no gap, no duplicate
        # other seats' hands never show: every event's hand fields are seat 0's
        assert all("game_id" in line for line in stream.lines if line["kind"] != "keepalive")
    finally:
        stream.close()
    # resume: the cursors name both games, so each starts after its cursor, without a view
    cursor_first = live.service.store.version(first) - 2
    cursor_second = live.service.store.version(second)
    play_one(http, live, second, second_tokens)
    resumed = Stream(
        live.url,
        f"/players/me/events?after={first}:{cursor_first},{second}:{cursor_second}",
        {**NDJSON, **auth(key)},
    )
    try:
        target = {first: live.service.store.version(first), second: cursor_second + 1}
        resumed.until(
            lambda lines: all(
                any(e["version"] == v for e in of(lines, g, "event")) for g, v in target.items()
            )
        )
        assert not of(resumed.lines, first, "view") and not of(resumed.lines, second, "view")
        assert [e["version"] for e in of(resumed.lines, first, "event")] == list(
            range(cursor_first + 1, target[first] + 1)
        )
        assert [e["version"] for e in of(resumed.lines, second, "event")] == [target[second]]
    finally:
        resumed.close()


@pytest.fixture
def capped(api_redis: Any) -> Iterator[LiveServer]:
    settings = load_settings(
        redis_url=REAL_REDIS_URL,
        rate_limit="100000/second",
        stream_keepalive_s=0.2,
        streams_per_address=2,
        player_stream_seats=1,
    )
    server = LiveServer(make_app(settings))
    server.thread.start()
    yield server
    server.server.shutdown()
    server.thread.join(5)


def test_a_player_stream_is_one_stream_against_the_caps_and_follows_at_most_its_games(
    capped: LiveServer,
) -> None:
    with httpx.Client(base_url=capped.url, timeout=10) as http:
        key = http.post("/players").json()["player_key"]
        older, _ = full_table(http, key)
        newer, _ = full_table(http, key)
        first = Stream(capped.url, "/players/me/events", {**NDJSON, **auth(key)})
        second = Stream(capped.url, "/players/me/events", {**NDJSON, **auth(key)})
        try:
            assert first.status == second.status == 200
            first.until(lambda lines: any(line["kind"] == "keepalive" for line in lines))
            # at most one game followed: the newest bound
            assert {line["game_id"] for line in first.lines if "game_id" in line} == {newer}
            refused = http.get("/players/me/events", headers={**NDJSON, **auth(key)})
            assert refused.status_code == 429
            assert refused.json()["scope"] == "address"
            assert http.get(f"/games/{older}/events", headers=NDJSON).status_code == 429
        finally:
            first.close()
            second.close()


def test_the_embedded_store_streams_seats_bound_later_under_threads(
    client: FlaskClient,
) -> None:
    """The in-process store of ``cardroom serve`` (a fake Redis, a reader thread):
    a seat bound while the player's stream waits joins it at once."""
    _, key = new_player(client)
    first = client.post("/games", json={"game": "murlan"}).get_json()["game_id"]
    client.post(f"/games/{first}/seats", json={"name": "a"}, headers=auth(key))
    lines: list[dict[str, Any]] = []
    opened = threading.Event()

    def follow() -> None:
        r = client.get("/players/me/events", headers={**NDJSON, **auth(key)}, buffered=False)
        for chunk in r.iter_encoded():
            lines.extend(json.loads(raw) for raw in chunk.splitlines() if raw)
            for line in lines:
                PLAYER_STREAM_LINE.validate_python(line)  # the contract's model of it
            opened.set()
            if any(line["kind"] == "seat" for line in lines):
                break
        r.close()

    reader = threading.Thread(target=follow, daemon=True)
    reader.start()
    assert opened.wait(10)
    later = client.post("/games", json={"game": "azi", "seats": 3}).get_json()["game_id"]
    client.post(f"/games/{later}/seats", json={"name": "b"}, headers=auth(key))
    reader.join(10)
    assert not reader.is_alive(), f"no seat line: {lines}"
    assert [line["kind"] for line in lines if line.get("game_id") == later][:1] == ["seat"]
    assert lines[0]["game_id"] == first and lines[0]["kind"] == "view"
