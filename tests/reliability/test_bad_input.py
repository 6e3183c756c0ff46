"""Hostile requests against every endpoint: never a 5xx, and a refusal changes nothing.

Each case is sent to a game in play; before and after it, every key the
service keeps is dumped (the stream, the seat token hashes, the secret, the
index, the idempotency records): a rejected request must leave them all
exactly as they were, and its answer must be a problem document.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import partial
from typing import Any

import pytest
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from service.games import GameService

from .conftest import Seated, bearer, dump

PROBLEM = "application/problem+json"


def assert_refused(r: TestResponse, *statuses: int) -> dict[str, Any]:
    """A 4xx problem document with one of ``statuses``."""
    assert r.status_code in statuses, (r.status_code, r.get_data(as_text=True)[:300])
    assert r.mimetype == PROBLEM
    problem: dict[str, Any] = r.get_json()
    assert problem["status"] == r.status_code
    assert problem["type"] and problem["title"] and problem["detail"]
    return problem


def post_raw(client: FlaskClient, path: str, raw: str | bytes, token: str | None) -> TestResponse:
    return client.post(path, data=raw, content_type="application/json", headers=bearer(token))


@pytest.mark.parametrize("depth", [40, 990, 5_000, 30_000])
def test_deeply_nested_bodies_are_a_400_not_a_500(
    murlan: Seated, client: FlaskClient, service: GameService, depth: int
) -> None:
    """JSON nested past the recursion limit used to escape as a 500 (RecursionError)."""
    deep = "[" * depth + "]" * depth
    gid, token = murlan.game_id, murlan.tokens[murlan.to_act()[0]]
    before = dump(service)
    for path, raw in [
        ("/games", deep),
        ("/games", '{"game": "azi", "seats": 2, "options": {"deck": ' + deep + "}}"),
        (f"/games/{gid}/seats", '{"name": ' + deep + "}"),
        (f"/games/{gid}/moves", '{"move": ' + deep + "}"),
        (f"/games/{gid}/moves", '{"move": {"action": "play", "cards": ' + deep + "}}"),
    ]:
        problem = assert_refused(post_raw(client, path, raw, token), 400)
        assert "nests" in problem["detail"]
    assert dump(service) == before


def refused(service: GameService, send: Callable[[], TestResponse], *statuses: int) -> Any:
    """Send a request that must be refused with one of ``statuses`` and change nothing."""
    before = dump(service)
    problem = assert_refused(send(), *statuses)
    assert dump(service) == before, "a refused request changed what the service keeps"
    return problem


@pytest.fixture
def tables(murlan: Seated, hazari: Seated, azi: Seated) -> list[Seated]:
    return [murlan, hazari, azi]


# -- size ------------------------------------------------------------------------------
def test_oversized_bodies_and_fields(
    murlan: Seated, client: FlaskClient, service: GameService
) -> None:
    gid, seat = murlan.game_id, murlan.to_act()[0]
    token = murlan.tokens[seat]
    padding = "x" * 70_000
    for path in ("/games", f"/games/{gid}/seats", f"/games/{gid}/moves"):
        raw = json.dumps({"game": "murlan", "name": padding, "move": {"action": padding}})
        refused(service, partial(post_raw, client, path, raw, token), 413)
    refused(
        service, partial(murlan.move, seat, {"move": {"action": "play", "cards": ["3S"] * 55}}), 422
    )
    key = "k" * 129
    refused(
        service,
        partial(murlan.move, seat, {"move": {"action": "pass"}, "idempotency_key": key}),
        422,
    )
    refused(
        service,
        partial(client.post, f"/games/{gid}/seats", json={"name": "n" * 41}),
        422,
    )
    long_token = {"Authorization": "Bearer " + "t" * 300}
    refused(service, partial(client.get, f"/games/{gid}", headers=long_token), 401)
    many = {f"X-H{n}": "v" for n in range(200)}
    r = client.get(f"/games/{gid}", headers=many)  # gunicorn caps the number; the app copes
    assert r.status_code == 200


def test_long_names_are_refused_on_a_free_seat(client: FlaskClient, service: GameService) -> None:
    gid = client.post("/games", json={"game": "murlan"}).get_json()["game_id"]
    for name in ("n" * 41, "🂡" * 41, ""):
        refused(service, partial(client.post, f"/games/{gid}/seats", json={"name": name}), 422)


# -- shape -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "body",
    [
        {"game": 1},
        {"game": "poker"},
        {"game": "azi", "seats": "3"},
        {"game": "azi", "seats": 3.0},
        {"game": "azi", "seats": True},
        {"game": "azi", "seats": 99},
        {"game": "azi", "seats": -1},
        {"game": "azi", "seats": 2**70},
        {"game": "murlan", "options": []},
        {"game": "murlan", "options": {"straight_beats": {"a": [1]}}},
        {"game": "hazari", "options": {"target": "360"}},
        {"game": "hazari", "options": {"target": 10**30}},
        {"game": "azi", "seats": 2, "options": {"buy_in": -5}},
        {"game": "azi", "seats": 2, "options": {"turn_timeout_s": float("nan")}},
        {"game": "murlan", "extra": 1},
        [],
        "murlan",
        None,
        17,
    ],
)
def test_wrong_types_opening_a_table(client: FlaskClient, service: GameService, body: Any) -> None:
    refused(service, partial(post_raw, client, "/games", json.dumps(body), None), 422)


@pytest.mark.parametrize(
    "body",
    [
        {"name": 7},
        {"name": None},
        {"name": ["a"]},
        {"name": "ok", "bot": "yes"},
        {"name": "ok", "bot": 1},
        {"name": "ok", "client_seed": "not a seed!"},
        {"name": "ok", "client_seed": "s" * 65},
        {"name": "ok", "client_seed": 5},
        {"name": "ok", "seat": 0},
        {},
        [],
    ],
)
def test_wrong_types_taking_a_seat(client: FlaskClient, service: GameService, body: Any) -> None:
    gid = client.post("/games", json={"game": "murlan"}).get_json()["game_id"]
    refused(service, partial(client.post, f"/games/{gid}/seats", json=body), 422)


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"move": None},
        {"move": "pass"},
        {"move": ["pass"]},
        {"move": {}},
        {"move": {"action": None}},
        {"move": {"action": 3}},
        {"move": {"action": "pass"}, "expected_version": "5"},
        {"move": {"action": "pass"}, "expected_version": 5.0},
        {"move": {"action": "pass"}, "expected_version": True},
        {"move": {"action": "pass"}, "expected_version": -1},
        {"move": {"action": "pass"}, "idempotency_key": 5},
        {"move": {"action": "pass"}, "idempotency_key": ""},
        {"move": {"action": "pass"}, "seat": 1},
        {"move": {"action": "play", "cards": "3S"}},
        {"move": {"action": "play", "cards": [3]}},
        {"move": {"action": "play", "cards": []}},
        {"move": {"action": "play", "cards": ["3S"], "card": "3S"}},
        {"move": {"action": "give_back"}},
    ],
)
def test_wrong_types_in_a_move(murlan: Seated, service: GameService, body: Any) -> None:
    refused(service, partial(murlan.move, murlan.to_act()[0], body), 422)


@pytest.mark.parametrize("action", ["cheat", "PLAY", "", "bet", "arrange", "leave", "play "])
def test_unknown_actions(tables: list[Seated], service: GameService, action: str) -> None:
    for t in tables:
        if (t.state.kind, action) in {("azi", "bet"), ("azi", "leave")}:
            continue  # real Azi actions (covered with wrong fields below)
        seat = t.to_act()[0]
        refused(service, partial(t.move, seat, {"move": {"action": action}}), 422)


def test_azi_bets_outside_the_listed_range(azi: Seated, service: GameService) -> None:
    seat = azi.to_act()[0]
    bets = [m["amount"] for m in azi.view(seat)["legal_moves"] if m["action"] == "bet"]
    low, high = min(bets), max(bets)
    for amount in (low - 1, high + 1, 0, -10, 10**12, "20", 20.5, None):
        body = {"move": {"action": "bet", "amount": amount}}
        refused(service, partial(azi.move, seat, body), 422)
    refused(service, partial(azi.move, seat, {"move": {"action": "bet"}}), 422)
    refused(service, partial(azi.move, seat, {"move": {"action": "fold", "amount": 5}}), 422)


# -- cards -------------------------------------------------------------------------------
CARD = re.compile(r"\b(?:[2-9TJQKA][CDHS]|BJ|RJ)\b")


def reveals_nothing(problem: Any, seated: Seated, seat: int, sent: set[str]) -> None:
    """The refusal names no card but the seat's own and the ones it sent."""
    shown = set(CARD.findall(json.dumps(problem)))
    assert shown <= sent | set(seated.hand(seat)), f"the refusal shows {shown - sent}"


def test_cards_not_in_the_hand(tables: list[Seated], service: GameService) -> None:
    for t in tables:
        seat = t.to_act()[0]
        other = next(s for s in range(len(t.tokens)) if s != seat)
        theirs = t.hand(other)[0]
        game = t.state.kind
        moves: list[dict[str, Any]]
        if game == "murlan":
            moves = [{"action": "play", "cards": [theirs]}, {"action": "play", "cards": ["1X"]}]
        elif game == "azi":
            moves = [{"action": "play", "card": theirs}, {"action": "discard", "card": theirs}]
        else:
            mine = t.hand(seat)
            swapped = [theirs, *mine[1:]]
            moves = [
                {
                    "action": "arrange",
                    "groups": [swapped[:3], swapped[3:6], swapped[6:9], swapped[9:]],
                }
            ]
        for move in moves:
            problem = refused(service, partial(t.move, seat, {"move": move}), 422)
            reveals_nothing(problem, t, seat, set(CARD.findall(json.dumps(move))))


def test_duplicated_cards(murlan: Seated, hazari: Seated, service: GameService) -> None:
    seat = murlan.to_act()[0]
    card = murlan.hand(seat)[0]
    for cards in ([card, card], [card, card, card, card]):
        body = {"move": {"action": "play", "cards": cards}}
        refused(service, partial(murlan.move, seat, body), 422)
    seat = hazari.to_act()[0]
    mine = hazari.hand(seat)
    doubled = [mine[0], *mine[:12]]  # one card twice, one missing
    groups = [doubled[:3], doubled[3:6], doubled[6:9], doubled[9:]]
    problem = refused(
        service, partial(hazari.move, seat, {"move": {"action": "arrange", "groups": groups}}), 422
    )
    assert problem["rule"] == "duplicate_card"


# -- tokens ------------------------------------------------------------------------------
def test_tokens_of_other_seats_and_games(
    murlan: Seated, azi: Seated, client: FlaskClient, service: GameService
) -> None:
    gid = murlan.game_id
    seat = murlan.to_act()[0]
    legal = murlan.view(seat)["legal_moves"][0]
    idle = murlan.idle()
    # another seat's (valid) token: the move is that seat's, and it may not move now
    problem = refused(service, partial(murlan.move, idle, {"move": legal}), 422)
    assert problem["rule"] == "not_your_turn"
    foreign = {"Authorization": f"Bearer {azi.tokens[0]}"}
    paths = [f"/games/{gid}", f"/games/{gid}/events", f"/games/{gid}/replay"]
    for headers, status in [
        (foreign, 403),
        ({"Authorization": "Bearer not-a-token"}, 403),
        ({"Authorization": f"Bearer {murlan.tokens[seat]}x"}, 403),
        ({"Authorization": f"Bearer {murlan.tokens[seat][:-1]}"}, 403),
        ({"Authorization": f"Basic {murlan.tokens[seat]}"}, 401),
        ({"Authorization": "Bearer"}, 401),
        ({"Authorization": "Bearer "}, 401),
        ({"Authorization": ""}, 401),
    ]:
        refused(
            service,
            partial(client.post, f"/games/{gid}/moves", json={"move": legal}, headers=headers),
            status,
        )
        for path in paths:
            refused(service, partial(client.get, path, headers=headers), status)
    refused(service, partial(client.post, f"/games/{gid}/moves", json={"move": legal}), 401)


def test_an_idempotency_key_replayed_with_another_body(
    murlan: Seated, service: GameService
) -> None:
    seat = murlan.to_act()[0]
    view = murlan.view(seat)
    legal = view["legal_moves"]
    first = legal[0]
    second = legal[1] if len(legal) > 1 else {"action": "pass"}  # the key is checked first
    body = {"move": first, "expected_version": view["version"], "idempotency_key": "k-1"}
    landed = murlan.move(seat, body)
    assert landed.status_code == 201
    again = murlan.move(seat, body)
    assert again.status_code == 201 and again.get_json() == landed.get_json()
    assert again.headers["Idempotent-Replayed"] == "true"
    for changed in (
        {**body, "move": second},
        {**body, "expected_version": view["version"] + 1},
        {k: v for k, v in body.items() if k != "expected_version"},
    ):
        problem = refused(service, partial(murlan.move, seat, changed), 422)
        assert problem["field"] == "idempotency_key"
    # the same key from another seat is that seat's own request: it lands
    other = murlan.to_act()[0]
    legal = murlan.view(other)["legal_moves"][0]
    r = murlan.move(other, {"move": legal, "idempotency_key": "k-1"})
    assert r.status_code == 201 and "Idempotent-Replayed" not in r.headers


@pytest.mark.parametrize("expected", [10**6, 2**63 - 1, 2**63, 2**64 + 1, 10**30])
def test_expected_versions_far_in_the_future(
    murlan: Seated, service: GameService, expected: int
) -> None:
    seat = murlan.to_act()[0]
    legal = murlan.view(seat)["legal_moves"][0]
    body = {"move": legal, "expected_version": expected}
    problem = refused(service, partial(murlan.move, seat, body), 409)
    assert problem["current_version"] == murlan.state.version


# -- names and ids -------------------------------------------------------------------------
NAMES = [
    "Zoë",
    "王小明",
    "🂡🂱 ♠♥",
    "עברית",
    "e\u0301",
    "<script>alert(1)</script>",
    "' OR 1=1 --",
    "a" * 40,
    "🂡" * 40,
    "Robert'); DROP TABLE seats;--",
]
UNPRINTABLE = ["\u200b", "\u202eevil", "a\u0000b", "tab\there", "\n", "\u2028"]


def test_unicode_names_are_kept_exactly(client: FlaskClient) -> None:
    games = []
    for names in (NAMES[:5], NAMES[5:]):
        gid = client.post("/games", json={"game": "azi", "seats": len(names)}).get_json()["game_id"]
        for name in names:
            r = client.post(f"/games/{gid}/seats", json={"name": name})
            assert r.status_code == 201, r.get_json()
            assert r.get_json()["name"] == name
        games.append((gid, names))
    for gid, names in games:
        seats = client.get(f"/games/{gid}").get_json()["seats"]
        assert [s["name"] for s in seats] == names


@pytest.mark.parametrize("name", UNPRINTABLE)
def test_unprintable_names_are_refused(
    client: FlaskClient, service: GameService, name: str
) -> None:
    gid = client.post("/games", json={"game": "murlan"}).get_json()["game_id"]
    refused(service, partial(client.post, f"/games/{gid}/seats", json={"name": name}), 422)


def test_names_that_are_not_text(client: FlaskClient, service: GameService) -> None:
    gid = client.post("/games", json={"game": "murlan"}).get_json()["game_id"]
    for raw in ('{"name": "\\ud800"}', '{"name": "a\\udfff"}', b'{"name": "\xff\xfe"}'):
        refused(service, partial(post_raw, client, f"/games/{gid}/seats", raw, None), 400, 422)


BAD_IDS = [
    "x",
    "a" * 65,
    "%7Bx%7D",
    "a}b",
    "a{b",
    "..%2F..",
    "%00",
    "%C3%A9",
    "a%20b",
    "a.b",
    "a:b",
]


@pytest.mark.parametrize("game_id", BAD_IDS)
def test_malformed_game_ids(
    murlan: Seated, client: FlaskClient, service: GameService, game_id: str
) -> None:
    token = {"Authorization": f"Bearer {murlan.tokens[0]}"}
    for method, suffix, body in [
        ("GET", "", None),
        ("GET", "/events", None),
        ("GET", "/replay", None),
        ("GET", "/verify", None),
        ("POST", "/seats", {"name": "x"}),
        ("POST", "/moves", {"move": {"action": "pass"}}),
    ]:
        for headers in ({}, token):
            if suffix == "/moves" and not headers:
                continue  # no token: 401 comes first
            refused(
                service,
                partial(
                    client.open,
                    f"/games/{game_id}{suffix}",
                    method=method,
                    json=body,
                    headers=headers,
                ),
                404,
            )


# -- encodings, queries, methods -------------------------------------------------------------
@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"{",
        b'{"game": "murlan"} trailing',
        b'{"game": "murlan",}',
        b"{'game': 'murlan'}",
        b'{"game": "murlan", "seats": NaN}',
        b'{"game": "azi", "seats": 1' + b"0" * 5000 + b"}",
        b"\x00\x01\x02",
    ],
)
def test_bodies_that_are_not_json(client: FlaskClient, service: GameService, raw: bytes) -> None:
    refused(service, partial(post_raw, client, "/games", raw, None), 400, 422)


def test_bodies_that_are_not_declared_json(
    murlan: Seated, client: FlaskClient, service: GameService
) -> None:
    body = json.dumps({"game": "murlan"})
    for content_type in (
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data",
        "",
    ):
        refused(service, partial(client.post, "/games", data=body, content_type=content_type), 415)


@pytest.mark.parametrize(
    ("query", "status"),
    [
        ("after=abc", 400),
        ("after=-1", 400),
        ("after=1e3", 400),
        ("after=%C2%B2", 400),
        ("after=1&after=2", 400),
        ("after=99999999999999", 422),
        ("limit=0", 422),
        ("limit=100000", 422),
        ("x=1", 422),
    ],
)
def test_hostile_queries(
    murlan: Seated, client: FlaskClient, service: GameService, query: str, status: int
) -> None:
    gid = murlan.game_id
    refused(service, partial(client.get, f"/games/{gid}/events?{query}"), status)
    if query.startswith("after=") and query != "after=99999999999999":
        stream = {"Accept": "application/x-ndjson"}
        send = partial(client.get, f"/games/{gid}/events?{query}", headers=stream)
        refused(service, send, status)


@pytest.mark.parametrize(
    ("query", "status"),
    [
        ("limit=0", 422),
        ("limit=101", 422),
        ("limit=x", 400),
        ("limit=%D9%A1", 400),
        ("game=poker", 422),
        ("status=lost", 422),
        ("cursor=%FF", 400),
        ("cursor=%C2%B2%3Aabc", 400),
        ("cursor=1%3Aa%2Fb", 400),
        ("cursor=" + "c" * 201, 400),
    ],
)
def test_hostile_listing_queries(
    client: FlaskClient, service: GameService, query: str, status: int
) -> None:
    problem = refused(service, partial(client.get, f"/games?{query}"), status)
    assert problem["field"] == query.partition("=")[0]


def test_methods_that_are_not_allowed(
    murlan: Seated, client: FlaskClient, service: GameService
) -> None:
    gid = murlan.game_id
    for method in ("PUT", "DELETE", "PATCH"):
        for path in ("/games", f"/games/{gid}", f"/games/{gid}/moves", f"/games/{gid}/seats"):
            refused(service, partial(client.open, path, method=method), 405)
