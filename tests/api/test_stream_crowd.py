"""A crowd of spectators from many addresses cannot close a seat's door to its stream.

Behind one trusted proxy (``CARDROOM_PROXIES=1``) each spectator comes from an
address of its own (``X-Forwarded-For``), so the per-address cap does not stop
the crowd: the caps on a game's spectators and on the spectators' share of the
process do, and the seats' own slots stay open.
"""

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
PER_ADDRESS = 4
PER_GAME = 20
MAX = 40
SPECTATORS = 30  # 3/4 of MAX: the other 10 are kept for seats
PER_SEAT = 3


@pytest.fixture
def crowded() -> Iterator[Flask]:
    settings = load_settings(
        rate_limit="100000/second",
        stream_keepalive_s=0.05,
        proxies=1,
        streams_per_address=PER_ADDRESS,
        streams_per_game=PER_GAME,
        streams_max=MAX,
        streams_per_seat=PER_SEAT,
        streams_spectator_share=0.75,
    )
    app = make_app(settings, RATELIMIT_ENABLED=False)
    yield app
    assert app.extensions["cardroom_streams"].open == 0, "a test left streams open"


class Crowd:
    """Streams opened from many addresses, kept open until :meth:`close`."""

    def __init__(self, app: Flask) -> None:
        self.app = app
        self.held: list[TestResponse] = []
        self.addresses = (f"198.51.{n // 250}.{n % 250 + 1}" for n in range(100_000))

    def open(self, game_id: str, address: str, token: str | None = None) -> TestResponse:
        r = self.app.test_client().get(
            f"/games/{game_id}/events",
            headers={**NDJSON, **bearer(token), "X-Forwarded-For": address},
            environ_base={"REMOTE_ADDR": "127.0.0.1"},  # the proxy
            buffered=False,
        )
        if r.status_code == 200:
            self.held.append(r)
        return r

    def fill(self, game_id: str) -> TestResponse:
        """Spectators from new addresses, as many as each may, until one is refused."""
        while True:
            address = next(self.addresses)
            for _ in range(PER_ADDRESS):
                r = self.open(game_id, address)
                if r.status_code != 200:
                    return r

    def close(self) -> None:
        for r in self.held:
            r.close()
        self.held.clear()


@pytest.fixture
def crowd(crowded: Flask) -> Iterator[Crowd]:
    made = Crowd(crowded)
    yield made
    made.close()


def seated(app: Flask, game: str = "hazari") -> tuple[str, list[str]]:
    api = Api(app.test_client(), app.extensions["cardroom"])
    table = api.table(game)
    return table.game_id, table.tokens


def refused(r: TestResponse, scope: str, limit: int) -> dict[str, Any]:
    assert r.status_code == 429, r.get_data()
    problem: dict[str, Any] = json.loads(r.get_data())
    assert problem["type"].endswith("/too-many-streams")
    assert (problem["scope"], problem["limit"]) == (scope, limit)
    assert problem["fallback"] == "poll" and problem["poll_after_s"] >= 1
    assert r.headers["Retry-After"] == str(problem["retry_after_s"])
    return problem


def first_line(r: TestResponse) -> dict[str, Any]:
    line: dict[str, Any] = json.loads(next(iter(r.response)))
    return line


def test_a_full_game_of_spectators_still_lets_its_seats_in(
    crowded: Flask, crowd: Crowd, service: GameService
) -> None:
    slots: StreamSlots = crowded.extensions["cardroom_streams"]
    game_id, tokens = seated(crowded)
    refused(crowd.fill(game_id), "game", PER_GAME)
    assert slots.spectators == PER_GAME
    # a new spectator, from a fresh address, is refused with the way on
    refused(crowd.open(game_id, "203.0.113.9"), "game", PER_GAME)
    # every seat still gets its stream, its own view first
    for seat, token in enumerate(tokens):
        r = crowd.open(game_id, f"203.0.113.{seat + 20}", token)
        assert r.status_code == 200
        view = first_line(r)
        assert view["kind"] == "view" and view["view"]["seat"] == seat
    # a token the game does not know is refused as such, and counts as nothing
    before = slots.open
    wrong = crowd.open(game_id, "203.0.113.50", "not-a-seat-token")
    assert wrong.status_code == 403 and slots.open == before
    # a seat has a few slots of its own (another device, a reload), not more
    for _ in range(PER_SEAT - 1):
        assert crowd.open(game_id, "203.0.113.20", tokens[0]).status_code == 200
    refused(crowd.open(game_id, "203.0.113.20", tokens[0]), "seat", PER_SEAT)
    assert slots.open == PER_GAME + len(tokens) + PER_SEAT - 1


def test_the_spectators_share_of_the_process_leaves_room_for_seats(
    crowded: Flask, crowd: Crowd
) -> None:
    slots: StreamSlots = crowded.extensions["cardroom_streams"]
    games = [seated(crowded) for _ in range(3)]
    refused(crowd.fill(games[0][0]), "game", PER_GAME)
    refused(crowd.fill(games[1][0]), "spectators", SPECTATORS)
    assert slots.spectators == SPECTATORS < slots.total
    last_game, tokens = games[2]
    refused(crowd.open(last_game, "203.0.113.9"), "spectators", SPECTATORS)
    # the seats of every game get in on the slots kept for them
    opened = 0
    for game_id, seat_tokens in games:
        for seat, token in enumerate(seat_tokens):
            r = crowd.open(game_id, f"203.0.114.{opened}", token)
            assert r.status_code == 200 and first_line(r)["view"]["seat"] == seat
            opened += 1
            if slots.open == MAX:
                break
        if slots.open == MAX:
            break
    assert opened == MAX - SPECTATORS
    # the hard cap holds for everyone, seats too
    refused(crowd.open(last_game, "203.0.114.200", tokens[-1]), "process", MAX)
    refused(crowd.open(last_game, "203.0.114.201"), "process", MAX)
    crowd.close()
    assert slots.open == slots.spectators == 0
