"""The app served over HTTP on the real Redis: races, retries and the live stream."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import httpx
import pytest
import redis
from werkzeug.test import EnvironBuilder

from service.api.live import Opened
from service.config import load_settings

from .conftest import REAL_REDIS_URL, LiveServer, make_app

pytestmark = pytest.mark.redis


def seat_up(http: httpx.Client, game: str, **body: Any) -> tuple[str, list[str]]:
    created = http.post("/games", json={"game": game, **body})
    assert created.status_code == 201, created.text
    gid = created.json()["game_id"]
    tokens = []
    for i in range(created.json()["seats"]):
        r = http.post(f"/games/{gid}/seats", json={"name": f"p{i}"})
        assert r.status_code == 201, r.text
        tokens.append(r.json()["token"])
    return gid, tokens


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def race(url: str, gid: str, moves: list[tuple[str, dict[str, Any]]]) -> list[httpx.Response]:
    """Send the moves at the same moment, each from its own thread and connection."""
    barrier = threading.Barrier(len(moves))
    results: list[httpx.Response] = []

    def send(token: str, body: dict[str, Any]) -> None:
        with httpx.Client(base_url=url, timeout=10) as own:
            barrier.wait()
            results.append(own.post(f"/games/{gid}/moves", json=body, headers=auth(token)))

    threads = [threading.Thread(target=send, args=move) for move in moves]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def test_two_moves_on_one_version_one_lands(live: LiveServer) -> None:
    """Hazari seats arrange at the same time: each round, two seats race on one version."""
    with httpx.Client(base_url=live.url, timeout=10) as http:
        for _ in range(5):
            gid, tokens = seat_up(http, "hazari")
            views = [http.get(f"/games/{gid}", headers=auth(t)).json() for t in tokens[:2]]
            version = views[0]["version"]
            moves = [
                (tokens[s], {"move": views[s]["legal_moves"][0], "expected_version": version})
                for s in (0, 1)
            ]
            results = race(live.url, gid, moves)
            assert sorted(r.status_code for r in results) == [201, 409]
            loser = next(r for r in results if r.status_code == 409)
            assert loser.json()["current_version"] == version + 1
            assert live.service.store.version(gid) == version + 1


def test_a_retried_idempotent_move_lands_once(live: LiveServer) -> None:
    with httpx.Client(base_url=live.url, timeout=10) as http:
        gid, tokens = seat_up(http, "hazari")
        view = http.get(f"/games/{gid}", headers=auth(tokens[0])).json()
        body = {
            "move": view["legal_moves"][0],
            "expected_version": view["version"],
            "idempotency_key": "retry-me",
        }
        answers = [
            http.post(f"/games/{gid}/moves", json=body, headers=auth(tokens[0])) for _ in range(3)
        ]
        assert [r.status_code for r in answers] == [201, 201, 201]
        assert answers[0].json() == answers[1].json() == answers[2].json()
        assert live.service.store.version(gid) == view["version"] + 1


def test_the_live_stream_follows_the_game(live: LiveServer) -> None:
    with httpx.Client(base_url=live.url, timeout=10) as http:
        gid, tokens = seat_up(http, "hazari", options={"target": 360})
        lines: list[dict[str, Any]] = []
        opened = threading.Event()

        def follow() -> None:
            headers = {"Accept": "application/x-ndjson", **auth(tokens[0])}
            with (
                httpx.Client(base_url=live.url, timeout=30) as own,
                own.stream("GET", f"/games/{gid}/events", headers=headers) as r,
            ):
                for line in r.iter_lines():
                    if line:
                        lines.append(json.loads(line))
                        opened.set()

        reader = threading.Thread(target=follow, daemon=True)
        reader.start()
        assert opened.wait(10)
        start = lines[0]["version"]
        while True:  # play to the end over HTTP; the workers' steps are taken here
            live.service.advance(gid)
            view = http.get(f"/games/{gid}").json()
            if view["status"] == "ended":
                break
            for seat in view["to_act"]:
                mine = http.get(f"/games/{gid}", headers=auth(tokens[seat])).json()
                body = {"move": mine["legal_moves"][0]}
                r = http.post(f"/games/{gid}/moves", json=body, headers=auth(tokens[seat]))
                assert r.status_code == 201, r.text
        reader.join(15)
        assert not reader.is_alive(), "the stream did not close at the end"
        events = [line["version"] for line in lines if line["kind"] == "event"]
        assert events == list(range(start + 1, live.service.store.version(gid) + 1))
        assert lines[-1]["kind"] == "end"
        revealed = [line for line in lines if line.get("event", {}).get("type") == "SeedRevealed"]
        assert len(revealed) == 1


def test_streams_opening_at_once_while_redis_fails_are_503s_never_500s(
    live: LiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reconnect storm: a table's streams all open at once (half resuming with
    ``after``) while the store's pool times out some of their openings' reads, as
    a blocking pool raises when every connection is busy. Each is a stream that
    starts with its view or a 503 problem, never a server's 500; and the hub holds
    no subscriber of any once they are closed."""
    svc = live.service
    with httpx.Client(base_url=live.url, timeout=10) as http:
        gid, tokens = seat_up(http, "hazari", options={"target": 360})
    svc.advance(gid)
    calls = {"talk": 0, "read": 0}
    talk_last_id, read = svc.store.talk.last_id, svc.store.read

    def failing(name: str, real: Any) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            calls[name] += 1
            if calls[name] % 2:
                raise redis.ConnectionError("No connection available.")
            return real(*args, **kwargs)

        return call

    monkeypatch.setattr(svc.store.talk, "last_id", failing("talk", talk_last_id))
    monkeypatch.setattr(svc.store, "read", failing("read", read))
    statuses: list[tuple[int, str, str]] = []
    streams = 3 * len(tokens)  # each seat's cap of open streams
    barrier = threading.Barrier(streams)

    def open_one(n: int) -> None:
        headers = {"Accept": "application/x-ndjson", **auth(tokens[n % len(tokens)])}
        query = "?after=0" if n % 2 else ""
        with httpx.Client(base_url=live.url, timeout=30) as own:
            barrier.wait()
            with own.stream("GET", f"/games/{gid}/events{query}", headers=headers) as r:
                first = next(r.iter_lines(), "")
                statuses.append((r.status_code, r.headers.get("content-type", ""), first))

    threads = [threading.Thread(target=open_one, args=(n,)) for n in range(streams)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert len(statuses) == streams
    assert {status for status, _, _ in statuses} == {200, 503}, statuses
    for status, kind, first in statuses:
        if status == 503:
            assert kind == "application/problem+json"
            assert json.loads(first)["code"] == "store-unavailable"
        else:
            assert json.loads(first)["kind"] == "view"
    hub = live.app.extensions["cardroom_hub"]
    deadline = time.monotonic() + 10  # the server closes each stream as its client goes
    while hub.feeds and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not hub.feeds, "a stream's subscriber was left on the hub"


def test_an_open_stream_is_the_servers_body_and_closing_it_frees_its_slot(
    api_redis: redis.Redis,
) -> None:
    """What an open stream keeps (docs/operations.md, "Memory per stream"): the
    server is handed the stream's own body, not werkzeug's iterators around a
    response (which would keep the response alive, and their frames in the
    stream's saved stack); closing the body frees the stream's slot, so the
    address's streams never run out however many open and close."""
    settings = load_settings(
        redis_url=REAL_REDIS_URL, rate_limit="100000/second", streams_per_address=1
    )
    app = make_app(settings)
    gid = app.test_client().post("/games", json={"game": "murlan"}).get_json()["game_id"]
    started: list[str] = []

    def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
        started.append(status)

    for _ in range(3):  # one slot for the address: each stream gives it back
        environ = EnvironBuilder(
            path=f"/games/{gid}/events", headers=[("Accept", "application/x-ndjson")]
        ).get_environ()
        started.clear()
        body = app(environ, start_response)
        assert started == ["200 OK"] and isinstance(body, Opened)
        assert json.loads(next(body))["kind"] == "view"
        body.close()
