"""POST /games, GET /games, GET /games/{id}."""

from __future__ import annotations

import re
from typing import Any

import pytest
from flask.testing import FlaskClient

from schemas.api import GamesPage
from service import games as games_module
from service.games import GameService
from service.store import keys
from tests.testredis import client_of

from .helpers import Api, bearer

PROBLEM = "application/problem+json"


@pytest.mark.parametrize(("game", "seats"), [("hazari", None), ("murlan", None), ("azi", 3)])
def test_create_each_game(api: Api, game: str, seats: int | None) -> None:
    created = api.create(game, seats=seats)
    assert re.fullmatch(r"[0-9a-f]{64}", created["commitment"])
    assert created["status"] == "seating" and created["version"] == 1
    first = api.events(created["game_id"])[0]
    assert first["type"] == "GameCreated" and first["commitment"] == created["commitment"]
    seed = api.service.store.get_secret(created["game_id"])
    assert seed is not None and len(seed) == 32


@pytest.mark.parametrize(
    ("body", "status", "extension"),
    [
        ({"game": "azi"}, 422, ("option", "seats")),
        ({"game": "hazari", "seats": 5}, 422, ("option", "seats")),
        ({"game": "hazari", "options": {"colour": "red"}}, 422, ("option", "colour")),
        ({"game": "hazari", "options": {"target": 5}}, 422, ("option", "target")),
        ({"game": "azi", "seats": 3, "options": {"ante": 0}}, 422, ("option", "ante")),
        ({"game": "murlan", "options": {"turn_timeout_s": -1}}, 422, ("option", "turn_timeout_s")),
        ({"game": "poker"}, 422, ("field", "game")),
        ({"game": "murlan", "seats": "4"}, 422, ("field", "seats")),
        ({"game": "murlan", "colour": 1}, 422, ("field", "colour")),
        ([1, 2], 422, ("field", "body")),
    ],
)
def test_create_refuses_bad_bodies(
    client: FlaskClient, body: object, status: int, extension: tuple[str, str]
) -> None:
    r = client.post("/games", json=body)
    assert r.status_code == status
    assert r.mimetype == PROBLEM
    problem = r.get_json()
    assert problem["status"] == status and problem["detail"]
    assert problem[extension[0]] == extension[1], problem


def test_create_refuses_malformed_json_and_other_media(client: FlaskClient) -> None:
    r = client.post("/games", data="{nope", content_type="application/json")
    assert r.status_code == 400 and r.mimetype == PROBLEM
    r = client.post("/games", data="game=hazari", content_type="application/x-www-form-urlencoded")
    assert r.status_code == 415 and r.mimetype == PROBLEM
    r = client.post("/games")
    assert r.status_code == 415


def test_list_pages_and_filters(api: Api, client: FlaskClient) -> None:
    ids = [api.create("hazari")["game_id"] for _ in range(3)]
    ids += [api.create("azi", seats=2)["game_id"] for _ in range(2)]
    seen, cursor = [], None
    while True:
        r = client.get("/games?limit=2" + (f"&cursor={cursor}" if cursor else ""))
        assert r.status_code == 200
        page = r.get_json()
        assert len(page["items"]) <= 2
        seen += [g["game_id"] for g in page["items"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert sorted(seen) == sorted(ids)
    azi = client.get("/games?game=azi").get_json()["items"]
    assert {g["game_id"] for g in azi} == set(ids[3:])
    assert client.get("/games?status=ended").get_json()["items"] == []
    seating = client.get("/games?status=seating&game=hazari").get_json()["items"]
    assert {g["game_id"] for g in seating} == set(ids[:3])


def test_list_items_say_when_the_game_was_created_and_last_moved(
    api: Api, client: FlaskClient, service: GameService
) -> None:
    gid = api.create("murlan")["game_id"]

    def listed() -> dict[str, Any]:
        (item,) = [g for g in client.get("/games").get_json()["items"] if g["game_id"] == gid]
        return dict(item)

    created = listed()
    # the first event is the creation itself
    assert created["last_event_at"] == service.store.read(gid, 0, 1)[0].at_ms
    assert api.join(gid, "ann").status_code == 201
    joined = listed()
    last = service.store.read(gid, 1, 1)[0]
    assert last.version == 2 and joined["last_event_at"] == last.at_ms
    assert joined["last_event_at"] >= created["last_event_at"]
    assert joined["created_at"] == created["created_at"]
    assert GamesPage.model_validate(client.get("/games").get_json())


def test_an_archived_game_is_listed_without_a_last_event(
    api: Api, client: FlaskClient, service: GameService
) -> None:
    gid = api.create("azi", seats=2)["game_id"]
    client_of(service.store).delete(keys.events(gid))  # what archiving leaves behind
    (item,) = [g for g in client.get("/games").get_json()["items"] if g["game_id"] == gid]
    assert item["last_event_at"] is None and item["created_at"] > 0


@pytest.mark.parametrize(
    ("query", "field", "status"),
    [
        ("limit=0", "limit", 422),
        ("limit=x", "limit", 400),
        ("game=chess", "game", 422),
        ("cursor=zz", "cursor", 400),
        ("cursor=%C2%B2%3Aabc", "cursor", 400),
    ],
)
def test_list_refuses_bad_queries(client: FlaskClient, query: str, field: str, status: int) -> None:
    r = client.get(f"/games?{query}")
    assert r.status_code == status and r.get_json()["field"] == field


def test_public_and_seat_views(api: Api, client: FlaskClient) -> None:
    tab = api.table("hazari")
    public = api.view(tab.game_id)
    assert public["status"] == "playing"
    assert "hand" not in public and "legal_moves" not in public
    assert [p["cards"] for p in public["progress"]["players"]] == [13, 13, 13, 13]
    mine = api.view(tab.game_id, tab.tokens[2])
    assert mine["seat"] == 2 and len(mine["hand"]) == 13
    assert mine["legal_moves_complete"] is False and len(mine["legal_moves"]) == 1
    assert mine["to_act"] == [0, 1, 2, 3] and mine["version"] == public["version"]


def without_id(problem: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in problem.items() if k != "request_id"}


def test_view_errors(api: Api, client: FlaskClient) -> None:
    tab = api.table("murlan")
    other = api.table("murlan")
    assert client.get("/games/no-such-game").status_code == 404
    assert client.get("/games/bad%20id").status_code == 404
    wrong = client.get(f"/games/{tab.game_id}", headers=bearer("x" * 43))
    foreign = client.get(f"/games/{tab.game_id}", headers=bearer(other.tokens[0]))
    assert wrong.status_code == foreign.status_code == 403
    # the same answer (but for each request's own id): nothing tells them apart
    assert wrong.get_json()["request_id"] != foreign.get_json()["request_id"]
    assert without_id(wrong.get_json()) == without_id(foreign.get_json())
    malformed = client.get(f"/games/{tab.game_id}", headers={"Authorization": "Basic abc"})
    assert malformed.status_code == 401
    assert other.tokens[0] not in foreign.get_data(as_text=True)


def test_a_new_game_id_never_starts_with_a_dash(
    service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`cardroom replay -K3…` would read the id as an option: such a draw is drawn again."""
    draws = iter(["-K3xJ9aQw2bZpLm0", "K3xJ9aQw2bZpLm0-"])
    monkeypatch.setattr(games_module.secrets, "token_urlsafe", lambda n: next(draws))
    assert service.create_game("murlan").game_id == "K3xJ9aQw2bZpLm0-"
