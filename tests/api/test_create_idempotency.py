"""``POST /games`` with an idempotency key, on fakeredis and on the real Redis.

A key is scoped to a secret the client holds (``Client-Secret``, or the
deprecated ``Client-Id``), else to its address; the same key with the same
body opens one table and every repeat answers with it; with another body it
is a 422 that changes nothing.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from werkzeug.test import TestResponse

from service.config import load_settings
from service.games import GameService
from service.idempotency import (
    CREATION_RETRY_AFTER_S,
    CREATION_WAIT_S,
    creation_scope,
    request_fingerprint,
)
from service.retention import drop_unjoined
from service.store import keys
from service.store.creations import DEFAULT_PENDING_MS
from tests.testredis import client_of

from .conftest import REAL_REDIS_URL, make_app

SECRET = "s3cr3t-0f-b0b-6f1d2a9c"
OTHER_SECRET = "mallory-9a8b7c6d5e4f3a2b"
MURLAN: dict[str, Any] = {"game": "murlan"}
AZI: dict[str, Any] = {"game": "azi", "seats": 6}
HAZARI_NO_LIMIT: dict[str, Any] = {"game": "hazari", "options": {"turn_timeout_s": 0}}


class Creator:
    """``POST /games`` with a key, as some client: its secret, its address."""

    def __init__(self, client: FlaskClient, service: GameService) -> None:
        self.client = client
        self.service = service

    def create(
        self,
        body: dict[str, Any],
        key: str | None = "table-1",
        secret: str | None = None,
        client_id: str | None = None,
        address: str = "127.0.0.1",
    ) -> TestResponse:
        headers = {}
        if secret is not None:
            headers["Client-Secret"] = secret
        if client_id is not None:
            headers["Client-Id"] = client_id
        sent = body if key is None else {**body, "idempotency_key": key}
        r = self.client.post(
            "/games", json=sent, headers=headers, environ_base={"REMOTE_ADDR": address}
        )
        r.close()  # the answer has gone out: its follow-ups are sent
        return r

    def indexed(self) -> set[str]:
        items, _ = self.service.store.list_games(None, None, 500, None)
        return {item.game_id for item in items}

    def keyspace(self) -> dict[bytes, Any]:
        """Every key and its value (a stream by its length), to compare before and after."""
        r = client_of(self.service.store)
        out: dict[bytes, Any] = {}
        for key in r.scan_iter(count=1000):
            kind = r.type(key)
            if kind == b"stream":
                out[key] = r.xlen(key)
            elif kind == b"string":
                out[key] = r.get(key)
            elif kind == b"hash":
                out[key] = r.hgetall(key)
            elif kind == b"zset":
                out[key] = r.zrange(key, 0, -1, withscores=True)
            elif kind == b"list":
                out[key] = r.lrange(key, 0, -1)
            else:
                out[key] = r.smembers(key)
        return out


@pytest.fixture(params=["fakeredis", "redis"])
def creator(request: pytest.FixtureRequest) -> Iterator[Creator]:
    """The app on fakeredis, then on the real Redis (its database flushed)."""
    overrides: dict[str, Any] = {}
    if request.param == "redis":
        request.getfixturevalue("api_redis")
        overrides["redis_url"] = REAL_REDIS_URL
    app = make_app(load_settings(**overrides), RATELIMIT_ENABLED=False)
    yield Creator(app.test_client(), app.extensions["cardroom"])


def test_the_same_key_and_body_open_one_table(creator: Creator) -> None:
    first = creator.create(MURLAN, secret=SECRET)
    again = creator.create(MURLAN, secret=SECRET)
    assert first.status_code == again.status_code == 201
    assert "Idempotent-Replayed" not in first.headers
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json()["game_id"] == first.get_json()["game_id"]
    assert again.headers["Location"] == f"/games/{first.get_json()['game_id']}"
    assert creator.indexed() == {first.get_json()["game_id"]}


def test_the_same_key_with_another_body_is_a_422_and_changes_nothing(creator: Creator) -> None:
    first = creator.create(MURLAN, secret=SECRET)
    assert first.status_code == 201
    before = creator.keyspace()
    for body in (AZI, {"game": "murlan", "options": {"turn_timeout_s": 30}}, {"game": "hazari"}):
        r = creator.create(body, secret=SECRET)
        assert r.status_code == 422, r.get_json()
        assert r.mimetype == "application/problem+json"
        problem = r.get_json()
        assert problem["type"].endswith("/idempotency-key-reused")
        assert problem["field"] == "idempotency_key"
        assert first.get_json()["game_id"] not in problem["detail"]
    assert creator.keyspace() == before
    again = creator.create(MURLAN, secret=SECRET)
    assert again.get_json()["game_id"] == first.get_json()["game_id"]


def test_another_client_s_key_never_hands_over_its_table(creator: Creator) -> None:
    """A squatter who opens a table first with the key bob will use, under a
    secret of its own, with no secret, or with bob's old-style short Client-Id
    from another address, leaves bob's request to open bob's own table."""
    squats = [
        creator.create(HAZARI_NO_LIMIT, secret=OTHER_SECRET),
        creator.create(HAZARI_NO_LIMIT, address="10.0.0.66"),
        creator.create(MURLAN, client_id="bob-phone", address="10.0.0.66"),
    ]
    assert all(r.status_code == 201 for r in squats)
    squatted = {r.get_json()["game_id"] for r in squats}
    for bob in (
        creator.create(MURLAN, secret=SECRET),
        creator.create(MURLAN, client_id="bob-phone", address="10.0.0.7"),
    ):
        assert bob.status_code == 201, bob.get_json()
        assert "Idempotent-Replayed" not in bob.headers
        created = bob.get_json()
        assert created["game"] == "murlan" and created["game_id"] not in squatted
        assert created["options"]["turn_timeout_s"] == 60
    assert len(creator.indexed()) == len(squats) + 2


def test_a_client_id_of_a_secret_s_length_is_a_secret(creator: Creator) -> None:
    """``Client-Id`` is served as before, now taken for a secret: a long one
    scopes keys wherever it is sent from, the same as ``Client-Secret`` with
    that value (a client may rename its header and keep its keys); a short one
    only from its address."""
    first = creator.create(MURLAN, client_id=SECRET, address="10.0.0.1")
    moved = creator.create(MURLAN, client_id=SECRET, address="10.0.0.2")
    renamed = creator.create(MURLAN, secret=SECRET, address="10.0.0.3")
    assert moved.headers["Idempotent-Replayed"] == renamed.headers["Idempotent-Replayed"] == "true"
    assert {moved.get_json()["game_id"], renamed.get_json()["game_id"]} == {
        first.get_json()["game_id"]
    }
    short = creator.create(MURLAN, client_id="app-a", address="10.0.0.1")
    short_again = creator.create(MURLAN, client_id="app-a", address="10.0.0.1")
    short_elsewhere = creator.create(MURLAN, client_id="app-a", address="10.0.0.2")
    assert short_again.get_json()["game_id"] == short.get_json()["game_id"]
    assert short_elsewhere.get_json()["game_id"] != short.get_json()["game_id"]
    assert "Idempotent-Replayed" not in short_elsewhere.headers


def test_without_a_secret_a_key_is_scoped_to_the_address(creator: Creator) -> None:
    first = creator.create(MURLAN)
    again = creator.create(MURLAN)
    elsewhere = creator.create(MURLAN, address="10.0.0.9")
    secret = creator.create(MURLAN, secret=SECRET)
    assert again.get_json()["game_id"] == first.get_json()["game_id"]
    ids = {r.get_json()["game_id"] for r in (first, elsewhere, secret)}
    assert len(ids) == 3


def test_a_key_whose_table_was_dropped_unjoined_opens_a_new_one(creator: Creator) -> None:
    """The retention pass drops tables nobody sat at (``CARDROOM_UNJOINED_TTL_S``):
    a repeat of the key that opened one then opens a new table."""
    first = creator.create(MURLAN, secret=SECRET)
    drop_unjoined(creator.service.store, first.get_json()["game_id"])
    again = creator.create(MURLAN, secret=SECRET)
    assert again.status_code == 201 and "Idempotent-Replayed" not in again.headers
    assert again.get_json()["game_id"] != first.get_json()["game_id"]
    assert creator.indexed() == {again.get_json()["game_id"]}
    replay = creator.create(MURLAN, secret=SECRET)
    assert replay.get_json()["game_id"] == again.get_json()["game_id"]


def test_a_record_of_the_older_release_still_answers_with_its_table(creator: Creator) -> None:
    """Records kept before fingerprints held the bare game id (address-scoped
    keys are named as they were): such a record is answered as it was then."""
    earlier = creator.create(MURLAN, key=None).get_json()["game_id"]
    record = keys.creation("addr:127.0.0.1", "table-1")  # the older release's name
    assert record == keys.creation(creation_scope(None, None, "127.0.0.1"), "table-1")
    client_of(creator.service.store).set(record, earlier)
    r = creator.create(MURLAN)
    assert r.status_code == 201 and r.headers["Idempotent-Replayed"] == "true"
    assert r.get_json()["game_id"] == earlier


def test_client_secret_wins_over_client_id(creator: Creator) -> None:
    first = creator.create(MURLAN, secret=SECRET, client_id=OTHER_SECRET)
    by_secret = creator.create(MURLAN, secret=SECRET)
    by_id = creator.create(MURLAN, client_id=OTHER_SECRET)
    assert by_secret.get_json()["game_id"] == first.get_json()["game_id"]
    assert by_id.get_json()["game_id"] != first.get_json()["game_id"]


def test_no_secret_is_kept_or_logged(creator: Creator, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level("DEBUG"):
        assert creator.create(MURLAN, secret=SECRET).status_code == 201
        assert creator.create(MURLAN, secret=SECRET).status_code == 201
        assert creator.create(AZI, secret=SECRET).status_code == 422
        assert creator.create(MURLAN, client_id=OTHER_SECRET).status_code == 201
    stored = repr(creator.keyspace()).encode()
    for secret in (SECRET, OTHER_SECRET):
        assert secret.encode() not in stored
        assert hashlib.sha256(secret.encode()).hexdigest().encode() not in stored
        assert secret not in caplog.text


def test_the_documented_waits() -> None:
    """docs/api.md: a repeat waits up to 1 s, then a 409 with Retry-After: 1; a
    reservation whose request died frees its key after 30 s."""
    assert CREATION_WAIT_S == 1.0 and CREATION_RETRY_AFTER_S == 1
    assert DEFAULT_PENDING_MS == 30_000


def test_behind_a_trusted_proxy_the_address_is_the_forwarded_one() -> None:
    """With ``CARDROOM_PROXIES`` the scope without a secret is the client's
    address as the proxy forwards it, as the rate limits see it."""
    app = make_app(load_settings(proxies=1), RATELIMIT_ENABLED=False)
    client = app.test_client()
    body = {**MURLAN, "idempotency_key": "table-1"}

    def create(forwarded: str) -> str:
        r = client.post("/games", json=body, headers={"X-Forwarded-For": forwarded})
        assert r.status_code == 201
        game_id: str = r.get_json()["game_id"]
        return game_id

    first = create("203.0.113.7")
    assert create("203.0.113.7") == first
    assert create("198.51.100.4") != first


@pytest.mark.parametrize(
    "secret", ["short", "x" * 257, "sixteen chars ok", "ünïcödé-secret-value", "tab\there-0123456"]
)
def test_a_malformed_client_secret_is_a_422(creator: Creator, secret: str) -> None:
    before = creator.keyspace()
    r = creator.create(MURLAN, secret=secret)
    assert r.status_code == 422
    problem = r.get_json()
    assert problem["type"].endswith("/bad-client-secret")
    assert problem["field"] == "Client-Secret"
    assert secret not in r.get_data(as_text=True)
    assert creator.keyspace() == before


def test_a_refused_body_reserves_nothing(creator: Creator) -> None:
    bad = creator.create({"game": "hazari", "options": {"target": -5}}, secret=SECRET)
    assert bad.status_code == 422 and bad.get_json()["option"] == "target"
    assert creator.keyspace() == {}
    good = creator.create({"game": "hazari"}, secret=SECRET)
    assert good.status_code == 201 and "Idempotent-Replayed" not in good.headers


def test_the_fingerprint_is_the_one_moves_and_seats_keep() -> None:
    """One canonical form for every endpoint's keys (sorted keys, no spaces), so
    the records kept before it was shared still match their retries."""
    body = {"seats": None, "options": {"b": 1, "a": [1, 2]}, "game": "murlan"}
    assert request_fingerprint(body) == request_fingerprint(dict(reversed(body.items())))
    canonical = b'{"expected_version":4,"move":{"action":"pass"},"seat":1}'
    move = {"seat": 1, "move": {"action": "pass"}, "expected_version": 4}
    assert request_fingerprint(move) == hashlib.sha256(canonical).hexdigest()


# -- a repeat while the first request is still opening its table ---------------------


class HeldAppend:
    """Holds the first creation inside its append until released."""

    def __init__(self, service: GameService, monkeypatch: pytest.MonkeyPatch) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()
        real = service.store.append
        calls: list[int] = []

        def held(*args: Any, **kwargs: Any) -> Any:
            calls.append(1)
            if len(calls) == 1:
                self.entered.set()
                assert self.release.wait(10), "never released"
            return real(*args, **kwargs)

        monkeypatch.setattr(service.store, "append", held)


def _in_thread(creator: Creator, out: list[TestResponse]) -> threading.Thread:
    thread = threading.Thread(target=lambda: out.append(creator.create(MURLAN, secret=SECRET)))
    thread.start()
    return thread


def test_a_repeat_waits_for_the_first_request_to_open_its_table(
    creator: Creator, monkeypatch: pytest.MonkeyPatch
) -> None:
    creator.service.creation_wait_s = 30.0  # a bound: the repeat is answered once the first is
    held = HeldAppend(creator.service, monkeypatch)
    polls = threading.Semaphore(0)
    real_reserve = creator.service.store.creations.reserve

    def counted(*args: Any) -> Any:
        found = real_reserve(*args)
        polls.release()
        return found

    monkeypatch.setattr(creator.service.store.creations, "reserve", counted)
    first: list[TestResponse] = []
    repeat: list[TestResponse] = []
    a = _in_thread(creator, first)
    assert held.entered.wait(10) and polls.acquire(timeout=10)
    b = _in_thread(creator, repeat)
    for _ in range(3):  # the repeat has found the record pending and looked again
        assert polls.acquire(timeout=10)
    held.release.set()
    a.join(10)
    b.join(10)
    assert first[0].status_code == repeat[0].status_code == 201
    assert repeat[0].headers["Idempotent-Replayed"] == "true"
    assert repeat[0].get_json()["game_id"] == first[0].get_json()["game_id"]
    assert len(creator.indexed()) == 1


def test_a_repeat_that_waits_in_vain_is_a_409_with_retry_after(
    creator: Creator, monkeypatch: pytest.MonkeyPatch
) -> None:
    creator.service.creation_wait_s = 0.05
    held = HeldAppend(creator.service, monkeypatch)
    first: list[TestResponse] = []
    a = _in_thread(creator, first)
    assert held.entered.wait(10)
    busy = creator.create(MURLAN, secret=SECRET)
    assert busy.status_code == 409
    assert busy.headers["Retry-After"] == "1"
    assert busy.get_json()["type"].endswith("/idempotency-key-in-use")
    assert busy.get_json()["field"] == "idempotency_key"
    other = creator.create(AZI, secret=SECRET)  # another body is refused at once, pending or not
    assert other.status_code == 422
    held.release.set()
    a.join(10)
    again = creator.create(MURLAN, secret=SECRET)
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json()["game_id"] == first[0].get_json()["game_id"]
    assert len(creator.indexed()) == 1


def test_a_reservation_whose_request_died_expires(creator: Creator) -> None:
    """A request that died between reserving its key and opening its table
    leaves the key pending: repeats are 409s until the reservation expires,
    then the key opens a table again."""
    records = creator.service.store.creations
    records.pending_ms = 200
    creator.service.creation_wait_s = 0
    body = {"game": "murlan", "options": {}, "seats": None}
    record = keys.creation(creation_scope(SECRET, None, "127.0.0.1"), "table-1")
    records.reserve(record, request_fingerprint(body))
    assert creator.create(MURLAN, secret=SECRET).status_code == 409
    deadline = time.monotonic() + 5
    while (r := creator.create(MURLAN, secret=SECRET)).status_code == 409:
        assert time.monotonic() < deadline, "the reservation never expired"
        time.sleep(0.02)
    assert r.status_code == 201 and "Idempotent-Replayed" not in r.headers
    assert len(creator.indexed()) == 1


# -- a property: any sequence of creations ---------------------------------------------

BODIES = [MURLAN, AZI, HAZARI_NO_LIMIT, {"game": "hazari", "options": {"target": 360}}]
Request = tuple[int, int | None, int]
REQUESTS = st.tuples(
    st.sampled_from([0, 1, 2]),  # who: two secrets and one client without
    st.one_of(st.none(), st.sampled_from([0, 1])),  # which key, if any
    st.sampled_from(range(len(BODIES))),
)
FAKE_APP = make_app(load_settings(), RATELIMIT_ENABLED=False)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(REQUESTS, min_size=1, max_size=12))
def test_any_sequence_of_creations_keeps_one_table_per_client_and_key(
    requests: list[Request],
) -> None:
    creator = Creator(FAKE_APP.test_client(), FAKE_APP.extensions["cardroom"])
    client_of(creator.service.store).flushall()
    secrets = [SECRET, OTHER_SECRET, None]
    first: dict[tuple[int, int], tuple[int, str]] = {}
    opened: set[str] = set()
    for who, key, body in requests:
        r = creator.create(
            BODIES[body], key=None if key is None else f"k{key}", secret=secrets[who]
        )
        earlier = None if key is None else first.get((who, key))
        if earlier is not None and earlier[0] != body:
            assert r.status_code == 422
            assert r.get_json()["type"].endswith("/idempotency-key-reused")
            continue
        assert r.status_code == 201, r.get_json()
        game_id = r.get_json()["game_id"]
        assert r.get_json()["game"] == BODIES[body]["game"]
        if earlier is not None:
            assert game_id == earlier[1] and r.headers["Idempotent-Replayed"] == "true"
        else:
            assert game_id not in opened and "Idempotent-Replayed" not in r.headers
            opened.add(game_id)
            if key is not None:
                first[(who, key)] = (body, game_id)
    assert creator.indexed() == opened
