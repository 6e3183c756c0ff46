"""POST /games/{id}/seats."""

from __future__ import annotations

import hashlib
import re

from flask.testing import FlaskClient

from service.engines.shuffle import derived_client_seed
from service.store import keys
from tests.testredis import client_of

from .helpers import Api


def test_seat_token_is_returned_once_and_stored_as_a_hash(api: Api) -> None:
    gid = api.create("murlan")["game_id"]
    r = api.join(gid, "Ana", client_seed="my-seed_1")
    assert r.status_code == 201
    grant = r.get_json()
    token = grant["token"]
    assert grant["seat"] == 0 and grant["client_seed"] == "my-seed_1"
    assert len(token) >= 43  # 256 bits, url-safe base64
    redis = client_of(api.service.store)
    stored = redis.hgetall(keys.tokens(gid))
    assert stored == {hashlib.sha256(token.encode()).hexdigest().encode(): b"0"}
    for key in redis.scan_iter("cardroom:*"):
        dump = redis.dump(key) or b""
        assert token.encode() not in dump


def test_client_seed_is_derived_when_absent_and_validated(api: Api) -> None:
    gid = api.create("murlan")["game_id"]
    grant = api.join(gid, "Ana").get_json()
    drawn = grant["client_seed"]
    assert re.fullmatch(r"[0-9a-f]{32}", drawn) and grant["seed_origin"] == "derived"
    secret = api.service.store.get_secret(gid)
    assert secret is not None and drawn == derived_client_seed(secret, 0)
    assert api.view(gid)["seats"][0]["seed_origin"] == "derived"
    bad = api.join(gid, "Bo", client_seed="no spaces!")
    assert bad.status_code == 422 and bad.get_json()["field"] == "client_seed"
    long = api.join(gid, "Bo", client_seed="a" * 65)
    assert long.status_code == 422 and long.get_json()["field"] == "client_seed"
    assert api.service.store.version(gid) == 2


def test_last_seat_deals_and_a_full_table_is_a_conflict(api: Api) -> None:
    tab = api.table("azi", {"cards": 3}, seats=2)
    view = api.view(tab.game_id)
    assert view["status"] == "playing"
    assert any(e["type"] == "HandDealt" for e in api.events(tab.game_id))
    version = api.service.store.version(tab.game_id)
    full = api.join(tab.game_id, "late")
    assert full.status_code == 409 and full.get_json()["rule"] == "table_full"
    assert api.service.store.version(tab.game_id) == version


def test_bot_seats_get_no_token(api: Api) -> None:
    gid = api.create("murlan")["game_id"]
    grant = api.join(gid, "Robo", bot=True).get_json()
    assert grant["token"] is None and grant["bot"] is True
    assert api.view(gid)["seats"][0]["bot"] is True


def test_a_bot_gets_the_derived_seed_and_may_not_bring_one(api: Api) -> None:
    """Whoever sits first, a bot's seed is the one the committed seed gives its seat."""
    gid = api.create("murlan")["game_id"]
    mine = api.join(gid, "Ana", client_seed="ana-own").get_json()
    assert mine["seed_origin"] == "player"
    refused = api.join(gid, "Robo", bot=True, client_seed="chosen-after-ana")
    assert refused.status_code == 422 and refused.get_json()["field"] == "client_seed"
    assert api.service.store.version(gid) == 2
    bot = api.join(gid, "Robo", bot=True).get_json()
    secret = api.service.store.get_secret(gid)
    assert secret is not None
    assert (bot["client_seed"], bot["seed_origin"]) == (derived_client_seed(secret, 1), "derived")


def test_bad_names_and_unknown_games(api: Api, client: FlaskClient) -> None:
    gid = api.create("murlan")["game_id"]
    assert api.join(gid, "").status_code == 422
    assert api.join(gid, "x" * 41).status_code == 422
    control = api.join(gid, "tab\there")
    assert control.status_code == 422 and control.get_json()["rule"] == "bad_name"
    assert client.post("/games/nope/seats", json={"name": "A"}).status_code == 404
    assert client.post(f"/games/{gid}/seats", json={"name": 5}).get_json()["field"] == "name"
    assert api.service.store.version(gid) == 1
