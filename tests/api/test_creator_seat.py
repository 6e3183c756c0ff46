"""The seat of the table's creator: the first person's seat taken by the client
that opened the table is marked ``creator`` in its ``SeatTaken``, with no secret
of that client kept or shown (docs/fairness.md, docs/events.md)."""

from __future__ import annotations

from typing import Any

from flask.testing import FlaskClient

from service.engines import table
from service.store import keys
from tests.testredis import client_of

from .helpers import Api

MINE = {"Client-Secret": "the-creator-secret-0123456789"}
OTHER = {"Client-Secret": "someone-else-secret-987654321"}


def create(client: FlaskClient, headers: dict[str, str]) -> str:
    r = client.post("/games", json={"game": "murlan"}, headers=headers)
    assert r.status_code == 201, r.get_json()
    return str(r.get_json()["game_id"])


def sit(client: FlaskClient, gid: str, name: str, headers: dict[str, str], **extra: Any) -> None:
    r = client.post(f"/games/{gid}/seats", json={"name": name, **extra}, headers=headers)
    assert r.status_code == 201, r.get_json()


def seats(api: Api, gid: str) -> list[table.Seat]:
    state = api.service.load(gid)
    return [s for s in state.seats if s is not None]


def test_the_creators_first_seat_is_marked_and_nobody_elses(api: Api) -> None:
    gid = create(api.client, MINE)
    sit(api.client, gid, "Helper", MINE, bot=True)  # a bot the creator adds: not his seat
    sit(api.client, gid, "Bo", OTHER)  # another client
    sit(api.client, gid, "Ana", MINE)  # the creator sits down
    sit(api.client, gid, "Ana2", MINE)  # and again: only the first is his
    marked = [(s.seat, s.name) for s in seats(api, gid) if s.creator]
    assert marked == [(2, "Ana")]
    view = api.view(gid)
    assert [s["creator"] for s in view["seats"]] == [False, False, True, False]


def test_a_table_opened_by_another_client_has_no_creator_seat(api: Api) -> None:
    gid = create(api.client, OTHER)
    sit(api.client, gid, "Ana", MINE)
    assert not any(s.creator for s in seats(api, gid))


def test_only_a_digest_of_the_creator_is_kept(api: Api) -> None:
    gid = create(api.client, MINE)
    redis = client_of(api.service.store)
    mark = redis.hget(keys.meta(gid), keys.CREATOR_FIELD)
    assert mark is not None and len(mark) == 32
    secret = MINE["Client-Secret"].encode()
    for key in redis.scan_iter("cardroom:*"):
        assert secret not in (redis.dump(key) or b"")
