"""Hostile requests against every endpoint: never a 5xx, and a refusal changes nothing.

Each case is sent to a game in play; before and after it, every key the
service keeps is dumped (the stream, the seat token hashes, the secret, the
index, the idempotency records): a rejected request must leave them all
exactly as they were, and its answer must be a problem document.
"""

from __future__ import annotations

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
