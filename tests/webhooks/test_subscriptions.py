"""The subscription endpoints: the seat's token, the budgets, rotation, deletion,
bad bodies, and the secret shown once."""

from __future__ import annotations

import pytest

from .conftest import Rig
from .support import Receiver, bearer, take_seats


@pytest.fixture
def seated(rig: Rig) -> tuple[str, list[str]]:
    r = rig.client.post("/games", json={"game": "azi", "seats": 3, "options": {}})
    game_id = r.get_json()["game_id"]
    return game_id, take_seats(rig.client, game_id, 2)


def post(rig: Rig, game_id: str, token: str | None, body: object) -> tuple[int, dict]:  # type: ignore[type-arg]
    headers = bearer(token) if token else {}
    r = rig.client.post(f"/games/{game_id}/webhooks", json=body, headers=headers)
    return r.status_code, r.get_json() or {}


def test_the_seat_token_is_required_and_must_open_a_seat(
    rig: Rig, seated: tuple[str, list[str]], receiver: Receiver
) -> None:
    game_id, _ = seated
    body = {"url": receiver.url(), "events": ["turn_started"]}
    status, problem = post(rig, game_id, None, body)
    assert status == 401 and problem["type"].endswith("/unauthenticated")
    status, problem = post(rig, game_id, "not-a-token", body)
    assert status == 403 and problem["type"].endswith("/forbidden")
    status, problem = post(rig, "no-such-game", "x", body)
    assert status == 404


@pytest.mark.parametrize(
    "body",
    [
        {"url": "https://public.test/", "events": []},
        {"url": "https://public.test/", "events": ["your_turn"]},
        {"url": "", "events": ["turn_started"]},
        {"events": ["turn_started"]},
        {"url": "https://public.test/", "events": ["turn_started"], "secret": "mine"},
    ],
)
def test_a_bad_body_is_a_422_and_makes_nothing(
    rig: Rig, seated: tuple[str, list[str]], body: dict[str, object]
) -> None:
    game_id, tokens = seated
    status, problem = post(rig, game_id, tokens[0], body)
    assert status == 422 and problem["type"].endswith("/invalid-body"), problem
    listed = rig.client.get(f"/games/{game_id}/webhooks", headers=bearer(tokens[0]))
    assert listed.get_json()["items"] == []


def test_a_seat_has_at_most_its_budget(rig: Rig, seated: tuple[str, list[str]]) -> None:
    game_id, tokens = seated
    per_seat = rig.runtime.settings.webhooks_per_seat
    body = {"url": "https://public.test/in", "events": ["turn_started"]}
    for _ in range(per_seat):
        assert post(rig, game_id, tokens[0], body)[0] == 201
    status, problem = post(rig, game_id, tokens[0], body)
    assert status == 409 and problem["type"].endswith("/too-many-webhooks")
    assert (problem["scope"], problem["limit"]) == ("seat", per_seat)
    assert post(rig, game_id, tokens[1], body)[0] == 201  # another seat's budget


def test_the_secret_is_shown_once_rotated_and_a_deleted_hook_is_gone(
    rig: Rig, seated: tuple[str, list[str]]
) -> None:
    game_id, tokens = seated
    status, made = post(
        rig, game_id, tokens[0], {"url": "https://public.test/a", "events": ["hand_ended"]}
    )
    assert status == 201 and made["secret"].startswith("whsec_") and made["status"] == "active"
    listed = rig.client.get(f"/games/{game_id}/webhooks", headers=bearer(tokens[0])).get_json()
    assert [h["id"] for h in listed["items"]] == [made["id"]]
    assert "secret" not in listed["items"][0] and made["secret"] not in str(listed)
    theirs = rig.client.get(f"/games/{game_id}/webhooks", headers=bearer(tokens[1])).get_json()
    assert theirs["items"] == []  # another seat sees none of them
    base = f"/games/{game_id}/webhooks/{made['id']}"
    assert rig.client.post(base + "/rotate", headers=bearer(tokens[1])).status_code == 404
    rotated = rig.client.post(base + "/rotate", headers=bearer(tokens[0])).get_json()
    assert rotated["secret"] != made["secret"] and rotated["id"] == made["id"]
    assert rig.client.delete(base, headers=bearer(tokens[1])).status_code == 404
    assert rig.client.delete(base, headers=bearer(tokens[0])).status_code == 204
    r = rig.client.delete(base, headers=bearer(tokens[0]))
    assert r.status_code == 404 and r.get_json()["type"].endswith("/webhook-not-found")
    listed = rig.client.get(f"/games/{game_id}/webhooks", headers=bearer(tokens[0])).get_json()
    assert listed["items"] == []


def test_an_address_has_a_budget_of_subscriptions() -> None:
    from service.api import create_app
    from service.config import load_settings
    from service.runtime import Runtime

    settings = load_settings(limit_webhooks="2/hour", rate_limit="1000/second")
    runtime = Runtime.from_settings(settings)
    app = create_app(settings, runtime, {"TESTING": True})
    client = app.test_client()
    game_id = client.post("/games", json={"game": "azi", "seats": 4, "options": {}}).get_json()[
        "game_id"
    ]
    tokens = take_seats(client, game_id, 3)
    body = {"url": "https://93.184.216.34/in", "events": ["turn_started"]}
    answers = [
        client.post(f"/games/{game_id}/webhooks", json=body, headers=bearer(t)) for t in tokens
    ]
    assert [a.status_code for a in answers] == [201, 201, 429]
    problem = answers[2].get_json()
    assert problem["type"].endswith("/rate-limited") and problem["budget"] == "webhooks"
    assert "Retry-After" in answers[2].headers
