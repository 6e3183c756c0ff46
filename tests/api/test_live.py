"""The app served over HTTP on the real Redis: races, retries and the live stream."""

from __future__ import annotations

import json
import threading
from typing import Any

import httpx
import pytest

from .conftest import LiveServer

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
