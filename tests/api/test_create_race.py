"""Twenty identical keyed ``POST /games`` at once, over HTTP on the real Redis.

Each request has its own thread and connection and they are let go together.
Exactly one opens a table; every other one answers with that table or, if the
first is still at it after the wait, a 409 with ``Retry-After``. Afterwards the
keyspace is the keyspace one such request leaves: one table's keys, one index
entry, one idempotency record, one follow-up: nothing else.
"""

from __future__ import annotations

import re
import threading
import time
from collections import Counter
from collections.abc import Iterator

import httpx
import pytest
import redis

from service.config import load_settings
from service.store.creations import CreationRecord, Reservation

from .conftest import REAL_REDIS_URL, LiveServer, make_app

pytestmark = pytest.mark.redis

RACERS = 20
ROUNDS = 5
SECRET = "racing-client-2b7f0c1e9d"
BODY = {"game": "murlan", "idempotency_key": "open-once"}
JOB_RE = re.compile(rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
SHARD_RE = re.compile(rb"\{index:\d+\}")
GAME_TAG_RE = re.compile(rb"^cardroom:\{([A-Za-z0-9_-]{16})\}:")


@pytest.fixture
def server(api_redis: redis.Redis) -> Iterator[LiveServer]:
    settings = load_settings(redis_url=REAL_REDIS_URL, stream_keepalive_s=0.2)
    live = LiveServer(make_app(settings, RATELIMIT_ENABLED=False))
    live.thread.start()
    yield live
    live.server.shutdown()
    live.thread.join(5)


def race(url: str, count: int) -> tuple[list[httpx.Response], float]:
    """``count`` identical keyed creations, let go together; and the seconds
    from their start to the last answer."""
    barrier = threading.Barrier(count)
    answers: list[httpx.Response] = []
    lock = threading.Lock()
    started: list[float] = []
    done: list[float] = []

    def send() -> None:
        with httpx.Client(base_url=url, timeout=30) as own:
            own.get("/healthz")  # connected before the start
            if barrier.wait() == 0:
                started.append(time.monotonic())
            r = own.post("/games", json=BODY, headers={"Client-Secret": SECRET})
            with lock:
                answers.append(r)
                done.append(time.monotonic())

    threads = [threading.Thread(target=send) for _ in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not any(t.is_alive() for t in threads), "a request hung"
    assert len(answers) == count
    return answers, max(done) - started[0]


def settled_keyspace(client: redis.Redis, game_id: str) -> Counter[bytes]:
    """Every key, with the table's id, its index shard and the queue's job ids
    written out as placeholders, once the follow-up of the creation has been sent (it goes
    out after the answer)."""
    deadline = time.monotonic() + 10
    while not client.exists("rq:queue:cardroom"):
        assert time.monotonic() < deadline, "the creation's follow-up was never sent"
        time.sleep(0.01)
    names = Counter[bytes]()
    for key in client.scan_iter(count=1000):
        name = JOB_RE.sub(b"<job>", key.replace(game_id.encode(), b"<game>"))
        names[SHARD_RE.sub(b"{index:<n>}", name)] += 1
    return names


def games_in(client: redis.Redis) -> set[str]:
    """Every game the keyspace knows of: by its keys, its index entries, the
    lag and drain lists."""
    seen = {m.group(1).decode() for key in client.scan_iter() if (m := GAME_TAG_RE.match(key))}
    for key in client.scan_iter(match="cardroom:{index:*}:meta"):
        seen.update(field.decode() for field in client.hkeys(key))
    for key in client.scan_iter(match="cardroom:{index:*}:games*"):
        seen.update(member.decode() for member in client.zrange(key, 0, -1))
    seen.update(m.decode() for m in client.zrange("cardroom:{metrics}:lag", 0, -1))
    seen.update(g.decode() for g in client.lrange("cardroom:{drains:cardroom}:pending", 0, -1))
    return seen


@pytest.mark.parametrize("wait_s", [1.0, 0.0], ids=["waiting", "no-wait"])
def test_racing_identical_creations_open_one_table(
    server: LiveServer, api_redis: redis.Redis, monkeypatch: pytest.MonkeyPatch, wait_s: float
) -> None:
    """With the default wait the repeats get the table; with none, every repeat
    that finds the key pending is a 409 at once (as Stripe answers), and its
    retry gets the table."""
    server.service.creation_wait_s = wait_s
    records = server.service.store.creations
    real_reserve = records.reserve
    pending: list[str] = []  # one entry each time a request found the key pending

    def reserve(key: str, fingerprint: str) -> Reservation | CreationRecord:
        found = real_reserve(key, fingerprint)
        if isinstance(found, CreationRecord) and found.game_id is None:
            pending.append(key)
        return found

    monkeypatch.setattr(records, "reserve", reserve)
    with httpx.Client(base_url=server.url, timeout=30) as http:
        one = http.post("/games", json=BODY, headers={"Client-Secret": SECRET})
        assert one.status_code == 201
    expected = settled_keyspace(api_redis, one.json()["game_id"])
    assert sum(expected[k] for k in expected if k.startswith(b"cardroom:{create:")) == 1
    statuses = Counter[int]()
    for _ in range(ROUNDS):
        api_redis.flushdb()
        waits = len(pending)
        answers, elapsed = race(server.url, RACERS)
        waits = len(pending) - waits
        statuses.update(r.status_code for r in answers)
        opened = [r for r in answers if r.status_code == 201]
        busy = [r for r in answers if r.status_code == 409]
        assert len(opened) + len(busy) == RACERS, [r.text for r in answers]
        ids = {r.json()["game_id"] for r in opened}
        assert len(ids) == 1, ids
        (game_id,) = ids
        assert sum("Idempotent-Replayed" not in r.headers for r in opened) == 1
        for r in busy:
            assert r.headers["Retry-After"] == "1"
            assert r.json()["type"].endswith("/idempotency-key-in-use")
        if not wait_s:
            assert len(busy) == waits  # each found it pending once, and said so
        assert settled_keyspace(api_redis, game_id) == expected
        assert games_in(api_redis) == {game_id}
        items, _ = server.service.store.list_games(None, None, 500, None)
        assert [item.game_id for item in items] == [game_id]
        print(
            f"\n{RACERS} racing creations: {len(opened)} x 201 (1 opened), "
            f"{len(busy)} x 409 in {elapsed * 1000:.0f} ms; the record found pending "
            f"{waits} times; 1 table, "
            f"{sum(expected.values())} keys as after one creation"
        )
        with httpx.Client(base_url=server.url, timeout=30) as http:
            for _ in busy:  # their retries, once the first request is done
                r = http.post("/games", json=BODY, headers={"Client-Secret": SECRET})
                assert r.status_code == 201 and r.json()["game_id"] == game_id
                assert r.headers["Idempotent-Replayed"] == "true"
        assert games_in(api_redis) == {game_id}
    assert statuses[201] >= ROUNDS
    assert pending, "no request ever found the key pending: no race was tested"
