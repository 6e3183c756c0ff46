"""Taking a seat with an idempotency key: a retry gets the same seat and token back."""

from __future__ import annotations

import hashlib

from service.games import GameService
from service.store import keys
from tests.testredis import client_of

from .helpers import Api, bearer

KEY = "k-0123456789abcdef"


def test_a_retry_with_the_same_key_gets_the_same_seat_and_token(
    api: Api, service: GameService
) -> None:
    game_id = api.create("murlan")["game_id"]
    first = api.join(game_id, "ana", idempotency_key=KEY)
    assert first.status_code == 201, first.get_json()
    again = api.join(game_id, "ana", idempotency_key=KEY)
    assert again.status_code == 201, again.get_json()
    a, b = first.get_json(), again.get_json()
    assert (b["seat"], b["token"], b["client_seed"]) == (a["seat"], a["token"], a["client_seed"])
    state = service.load(game_id)
    assert [s is not None for s in state.seats] == [True, False, False, False]
    # the token opens the seat, and it is stored nowhere in plain text
    assert api.view(game_id, a["token"])["seat"] == a["seat"]
    redis = client_of(service.store)
    for key in redis.scan_iter(f"cardroom:{{{game_id}}}:*"):
        kind = redis.type(key)
        dump = (
            str(redis.hgetall(key))
            if kind == b"hash"
            else str(redis.get(key))
            if kind == b"string"
            else str(redis.xrange(key))
        )
        assert a["token"] not in dump, key
    hashes = redis.hgetall(keys.tokens(game_id))
    assert hashlib.sha256(a["token"].encode()).hexdigest().encode() in hashes


def test_another_key_gets_another_seat(api: Api) -> None:
    game_id = api.create("murlan")["game_id"]
    a = api.join(game_id, "ana", idempotency_key=KEY).get_json()
    b = api.join(game_id, "ana", idempotency_key=KEY + "-2").get_json()
    c = api.join(game_id, "ana").get_json()
    assert len({a["seat"], b["seat"], c["seat"]}) == 3
    assert len({a["token"], b["token"], c["token"]}) == 3


def test_the_same_key_with_a_different_request_is_refused(api: Api, service: GameService) -> None:
    game_id = api.create("murlan")["game_id"]
    assert api.join(game_id, "ana", idempotency_key=KEY).status_code == 201
    before = service.load(game_id).version
    for changed in ({"name": "bob"}, {"name": "ana", "client_seed": "other"}):
        r = api.join(game_id, idempotency_key=KEY, **changed)
        assert r.status_code == 422
        assert r.headers["Content-Type"] == "application/problem+json"
        problem = r.get_json()
        assert problem["field"] == "idempotency_key"
        assert "token" not in problem and KEY not in str(problem)
    assert service.load(game_id).version == before


def test_a_short_key_is_refused(api: Api, service: GameService) -> None:
    game_id = api.create("murlan")["game_id"]
    r = api.join(game_id, "ana", idempotency_key="short")
    assert r.status_code == 422
    assert "idempotency_key" in str(r.get_json())
    assert service.load(game_id).version == 1


def test_the_last_seat_retried_still_starts_the_game_once(api: Api, service: GameService) -> None:
    game_id = api.create("murlan")["game_id"]
    for n in range(3):
        api.join(game_id, f"p{n}")
    last = api.join(game_id, "last", idempotency_key=KEY).get_json()
    version = service.load(game_id).version
    again = api.join(game_id, "last", idempotency_key=KEY)
    assert again.status_code == 201
    assert again.get_json()["token"] == last["token"]
    assert service.load(game_id).version == version
    r = api.client.get(f"/games/{game_id}", headers=bearer(last["token"]))
    assert r.get_json()["status"] == "playing"
