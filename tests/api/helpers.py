"""Helpers of the API tests: a thin client, and the checks that nothing secret leaks."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from service.engines import table
from service.games import GameService

CARD_RE = re.compile(r"^(?:[2-9TJQKA][CDHS]|BJ|RJ)$")
HIDDEN = "??"


def bearer(token: str | None) -> dict[str, str]:
    return {} if token is None else {"Authorization": f"Bearer {token}"}


@dataclass
class Table:
    game_id: str
    game: str
    tokens: list[str]
    created: dict[str, Any]


class Api:
    """The endpoints as methods, on the Flask test client."""

    def __init__(self, client: FlaskClient, service: GameService) -> None:
        self.client = client
        self.service = service

    def create(
        self, game: str, options: dict[str, Any] | None = None, seats: int | None = None
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"game": game, "options": options or {}}
        if seats is not None:
            body["seats"] = seats
        r = self.client.post("/games", json=body)
        assert r.status_code == 201, r.get_json()
        data: dict[str, Any] = r.get_json()
        r.close()  # the answer has gone out: its follow-ups are sent
        return data

    def join(self, game_id: str, name: str = "", **extra: Any) -> TestResponse:
        body = {"name": name, **extra} if name else extra
        return self.client.post(f"/games/{game_id}/seats", json=body)

    def table(
        self, game: str, options: dict[str, Any] | None = None, seats: int | None = None
    ) -> Table:
        created = self.create(game, options, seats)
        tokens = []
        for i in range(created["seats"]):
            r = self.join(created["game_id"], f"player {i}", client_seed=f"seed-{i}")
            assert r.status_code == 201, r.get_json()
            tokens.append(r.get_json()["token"])
            r.close()  # the answer has gone out: its follow-ups are sent
        return Table(created["game_id"], game, tokens, created)

    def view(self, game_id: str, token: str | None = None) -> dict[str, Any]:
        r = self.client.get(f"/games/{game_id}", headers=bearer(token))
        assert r.status_code == 200, r.get_json()
        data: dict[str, Any] = r.get_json()
        return data

    def move(self, game_id: str, token: str | None, move: Any, **extra: Any) -> TestResponse:
        return self.client.post(
            f"/games/{game_id}/moves", json={"move": move, **extra}, headers=bearer(token)
        )

    def events(self, game_id: str, token: str | None = None, after: int = 0) -> list[Any]:
        """Every event this viewer may see now, following the pages."""
        out: list[Any] = []
        while True:
            r = self.client.get(
                f"/games/{game_id}/events?after={after}&limit=500", headers=bearer(token)
            )
            assert r.status_code == 200, r.get_json()
            page = r.get_json()
            out.extend(page["events"])
            if page["next_after"] is None:
                return out
            after = page["next_after"]


# -- the truth, straight from the store ------------------------------------------------
def true_hand(state: table.Table, seat: int) -> set[str]:
    """The cards ``seat`` holds: the engine's own answer on the state folded from the
    store (not what the HTTP layer served)."""
    hand = state.engine.view(state.engine_state, seat).get("hand") or []
    return {str(c) for c in hand}


@dataclass
class Truth:
    """Every state of a game by version, folded from the store's events, and the
    cards each seat has held in the deal in force at each version."""

    service: GameService
    game_id: str
    states: list[table.Table | None] = field(default_factory=lambda: [None])
    deal_at: list[int] = field(default_factory=lambda: [-1])
    owned: list[list[set[str]]] = field(default_factory=lambda: [[]])

    def refresh(self) -> None:
        for stored in self.service.store.read(self.game_id, after=len(self.states) - 1):
            state = table.apply(self.states[-1], stored.event)
            deal = self.deal_at[-1] + (1 if stored.event.is_deal else 0)
            same_deal = deal == self.deal_at[-1] and deal >= 0
            owned = []
            for seat in range(state.seat_count):
                before = self.owned[-1][seat] if same_deal and self.owned[-1] else set()
                owned.append(before | (true_hand(state, seat) if deal >= 0 else set()))
            self.states.append(state)
            self.deal_at.append(deal)
            self.owned.append(owned)

    @property
    def current(self) -> table.Table:
        state = self.states[-1]
        assert state is not None
        return state

    def hand(self, seat: int, version: int) -> set[str]:
        state = self.states[version]
        assert state is not None
        return true_hand(state, seat)

    def own_cards(self, seat: int, version: int) -> set[str]:
        """Cards ``seat`` held at any time in the deal in force at ``version``, up to it."""
        return self.owned[version][seat] if self.owned[version] else set()

    @property
    def revealed(self) -> bool:
        return self.current.server_seed is not None


def leaves(doc: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from leaves(v, (*path, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from leaves(v, (*path, i))
    else:
        yield path, doc


def extra_cards(seat_doc: Any, public_doc: Any) -> set[str]:
    """Cards the seat's document shows where the public one shows something else."""
    public = dict(leaves(public_doc))
    return {
        value
        for path, value in leaves(seat_doc)
        if isinstance(value, str) and CARD_RE.match(value) and public.get(path) != value
    }


def all_cards(doc: Any) -> set[str]:
    return {v for _, v in leaves(doc) if isinstance(v, str) and CARD_RE.match(v)}


@dataclass
class Scanner:
    """Checks every response a seat gets: no token, no unrevealed seed, no other seat's cards."""

    api: Api
    tab: Table
    truth: Truth
    responses: int = 0

    def text(self, raw: bytes | str) -> None:
        """No token ever comes back after the join; the seed only once revealed."""
        text = raw.decode() if isinstance(raw, bytes) else raw
        self.responses += 1
        for token in self.tab.tokens:
            assert token not in text, "a seat token appears in a response"
        self.truth.refresh()
        if not self.truth.revealed:
            seed = self.api.service.store.get_secret(self.tab.game_id)
            assert seed is not None
            assert seed.hex() not in text, "the unrevealed server seed appears in a response"

    def view(self, seat: int, seat_view: dict[str, Any], public_view: dict[str, Any]) -> None:
        version = seat_view["version"]
        assert public_view["version"] == version
        assert set(seat_view["hand"]) == self.truth.hand(seat, version)
        assert "hand" not in public_view and "hand" not in public_view["table"]
        if public_view["server_seed"] is None:  # once revealed, everything is public
            self.diff(seat, seat_view, public_view, version)

    def diff(self, seat: int, seat_doc: Any, public_doc: Any, version: int) -> None:
        extra = extra_cards(seat_doc, public_doc)
        own = self.truth.own_cards(seat, version)
        if not extra <= own:
            public = dict(leaves(public_doc))
            where = [p for p, v in leaves(seat_doc) if v in extra - own and public.get(p) != v]
            raise AssertionError(f"seat {seat} sees {sorted(extra - own)} at {where} (v{version})")

    def events(self, seat: int, seat_events: list[Any], public_events: list[Any]) -> None:
        assert [e["version"] for e in seat_events] == [e["version"] for e in public_events]
        ended = self.truth.revealed
        for mine, public in zip(seat_events, public_events, strict=True):
            if not ended and "hands" in public:
                assert all(c == HIDDEN for h in public["hands"] for c in h)
            self.diff(seat, mine, public, mine["version"])

    def public_events(self, public_events: list[Any]) -> None:
        if self.truth.revealed:
            return
        for event in public_events:
            for hand in event.get("hands", []):
                assert all(c == HIDDEN for c in hand), f"public deal shows cards: {event}"


def ndjson(raw: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in raw.decode().splitlines() if line.strip()]
