"""A household behind one address plays a whole Murlan hand and never sees a 429.

Four players at one table, each with the table open in two tabs, and a
spectator's tab, all on one address and the default budgets. Every tab does
what the web table does (service/web/static/js/table.js): on opening, the
live stream, the events page that fills the log and the view; after every
event it fetches its view again. The players move briskly (a move a
second; the limiter runs on a clock the test moves, so the game takes the
time it would at a real table instead of a flood's). A flood from the same
household, at the same clock, is refused.
"""

from __future__ import annotations

import random
import uuid
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from service.api.limits import Limits
from service.budgets import MemoryBudgets
from service.config import load_settings
from service.games import GameService

from .conftest import make_app

HOME = {"REMOTE_ADDR": "192.0.2.7"}
NDJSON = "application/x-ndjson"
SECONDS_PER_MOVE = 1.0
MAX_MOVES = 500


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def household_app() -> tuple[Flask, Clock]:
    app = make_app(load_settings())  # the default budgets, limiting on
    limits: Limits = app.extensions["cardroom_limits"]
    clock = Clock()
    assert isinstance(limits.shared, MemoryBudgets)  # embedded: counted in process
    limits.shared.clock = clock
    limits.local.clock = clock
    return app, clock


class Household:
    def __init__(self, client: FlaskClient) -> None:
        self.client = client
        self.codes: list[int] = []

    def get(self, path: str, token: str | None = None, **headers: str) -> Any:
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        r = self.client.get(path, headers=headers, environ_base=HOME)
        self.codes.append(r.status_code)
        assert r.status_code == 200, (path, r.get_json())
        return r.get_json()

    def post(self, path: str, body: dict[str, Any], token: str | None = None) -> Any:
        headers = {} if token is None else {"Authorization": f"Bearer {token}"}
        r = self.client.post(path, json=body, headers=headers, environ_base=HOME)
        self.codes.append(r.status_code)
        assert r.status_code == 201, (path, r.get_json())
        return r.get_json()

    def open_tab(self, gid: str, token: str | None) -> int:
        """What a table tab does on opening: the live stream's first line, the log, the view."""
        headers = {"Accept": NDJSON}
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        stream = self.client.get(
            f"/games/{gid}/events", headers=headers, environ_base=HOME, buffered=False
        )
        self.codes.append(stream.status_code)
        assert stream.status_code == 200
        stream.close()  # the test reads views instead of holding nine streams open
        version: int = self.get(f"/games/{gid}", token)["version"]
        self.get(f"/games/{gid}/events?after={max(0, version - 40)}", token)
        return version


def test_a_household_plays_a_whole_hand_without_a_429() -> None:
    app, clock = household_app()
    home = Household(app.test_client())
    svc: GameService = app.extensions["cardroom"]
    rng = random.Random(7)

    gid = home.post("/games", {"game": "murlan"})["game_id"]
    tokens = [home.post(f"/games/{gid}/seats", {"name": f"p{i}"})["token"] for i in range(4)]
    tabs: list[str | None] = [t for t in tokens for _ in range(2)] + [None]  # + a spectator
    for tab in tabs:
        home.open_tab(gid, tab)

    first_hand = home.get(f"/games/{gid}")["table"]["hand_number"]
    moves = 0
    while moves < MAX_MOVES:
        svc.advance(gid)  # what the workers do between hands
        public = home.get(f"/games/{gid}")
        if public["status"] == "ended" or public["table"]["hand_number"] > first_hand:
            break
        seat = public["to_act"][0]
        mine = home.get(f"/games/{gid}", tokens[seat])
        move = rng.choice(mine["legal_moves"])
        home.post(
            f"/games/{gid}/moves",
            {"move": move, "idempotency_key": str(uuid.uuid4())},
            tokens[seat],
        )
        moves += 1
        clock.now += SECONDS_PER_MOVE
        for tab in tabs:  # every tab refreshes its view after the event
            home.get(f"/games/{gid}", tab)

    assert public["table"]["hand_number"] > first_hand, f"no hand ended in {MAX_MOVES} moves"
    assert 429 not in home.codes
    assert len(home.codes) > 10 * moves  # the tabs really did their polling

    # The same household flooding at the same clock is refused, with a budget named.
    flood = [home.client.get(f"/games/{gid}", environ_base=HOME).status_code for _ in range(200)]
    assert 429 in flood
