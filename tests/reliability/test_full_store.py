"""A Redis that refuses writes: the API answers 503 with ``Retry-After`` and a
``store-read-only`` problem, reads go on, ``/readyz`` says not ready, a metric
counts and one log line per change says why; once Redis takes writes again,
everything is back.

Two real ``redis-server``s of their own (service/devstack/):

- the deploy's ``redis.conf`` and ``users.acl`` as they are (``noeviction``,
  the service's user) with only ``maxmemory`` made tiny on the command line,
  filled with keys of cardroom's own until writes fail (``OOM``);
- a server with the default user and an RDB save point whose BGSAVE fails
  (its directory removed under it: as reliable as root as it is otherwise),
  so that Redis refuses writes with ``MISCONF``.

The app runs in this process (its logs on stderr, its metrics on ``/metrics``).
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient
from rq import Worker

from service.api import create_app
from service.config import load_settings
from service.devstack import RedisServer, private_directory, wait_for
from service.games import GameService
from service.runtime import Runtime

pytestmark = [pytest.mark.redis]

FILLER = "cardroom:{filler}:"
"""Keys of the service's own namespace (the deploy's ACL lets it write only those)."""


def app_on(url: str) -> tuple[FlaskClient, GameService]:
    """The app on ``url``, with a worker registered there (so that ``/readyz`` is
    about Redis alone)."""
    settings = load_settings(redis_url=url, rate_limit="100000/second", bot_delay_s=0)
    runtime = Runtime.from_settings(settings)
    app = create_app(settings, runtime, {"TESTING": True, "RATELIMIT_ENABLED": False})
    Worker([runtime.queue], connection=runtime.queue_redis).register_birth()
    return app.test_client(), app.extensions["cardroom"]


@pytest.fixture
def directory() -> Iterator[Path]:
    path = private_directory("cardroom-full-")
    yield path
    shutil.rmtree(path, ignore_errors=True)


def seat_all(client: FlaskClient, game_id: str, seats: int) -> list[str]:
    tokens = []
    for i in range(seats):
        r = client.post(f"/games/{game_id}/seats", json={"name": f"p{i}"})
        assert r.status_code == 201, r.get_json()
        tokens.append(r.get_json()["token"])
    return tokens


def a_legal_move(
    client: FlaskClient, service: GameService, game_id: str, tokens: list[str]
) -> tuple[str, Any]:
    """(token, move) of a seat to act in a dealt game."""
    service.advance(game_id)
    view = client.get(f"/games/{game_id}").get_json()
    seat = view["to_act"][0]
    mine = client.get(f"/games/{game_id}", headers=bearer(tokens[seat])).get_json()
    return tokens[seat], mine["legal_moves"][0]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def fill(client: redis.Redis) -> int:
    """Write filler keys until Redis refuses even a small one; how many it took.

    Large values first, then small ones: a refused large write frees its own
    query buffer and leaves Redis just under the limit again."""
    n = 0
    for size in (16_384, 64):
        while True:
            try:
                client.set(f"{FILLER}{n}", b"x" * size)
            except redis.exceptions.OutOfMemoryError:
                break
            n += 1
            assert n < 100_000, "Redis never refused a write: is maxmemory set?"
    return n


def log_lines(text: str, msg: str) -> list[dict[str, Any]]:
    out = []
    for line in text.splitlines():
        if line.startswith("{") and f'"msg": "{msg}"' in line:
            out.append(json.loads(line))
    return out


def refused_count(client: FlaskClient, reason: str) -> float:
    metrics = client.get("/metrics").get_data(as_text=True)
    for line in metrics.splitlines():
        if line.startswith(f'cardroom_store_refused_writes_total{{reason="{reason}"}}'):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def refusing(client: FlaskClient, reason: str) -> float:
    metrics = client.get("/metrics").get_data(as_text=True)
    for line in metrics.splitlines():
        if line.startswith(f'cardroom_store_refusing_writes{{reason="{reason}"}}'):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def assert_refused(response: Any, reason: str) -> None:
    assert response.status_code == 503, response.get_data(as_text=True)
    assert response.mimetype == "application/problem+json"
    body = response.get_json()
    assert body["type"].endswith("/store-read-only") and body["reason"] == reason
    assert int(response.headers["Retry-After"]) > 0


def test_at_maxmemory_writes_get_503_reads_go_on_and_readyz_says_why(
    directory: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = RedisServer(directory, "--maxmemory", "4mb", deploy=True).start()
    try:
        raw = server.client()  # the deploy's user, who may not CONFIG: the limit is set at start
        client, service = app_on(server.url)
        waiting = client.post("/games", json={"game": "murlan"}).get_json()["game_id"]
        assert client.post(f"/games/{waiting}/seats", json={"name": "ann"}).status_code == 201
        playing = client.post("/games", json={"game": "hazari", "options": {"target": 360}})
        game_id = playing.get_json()["game_id"]
        tokens = seat_all(client, game_id, 4)
        token, move = a_legal_move(client, service, game_id, tokens)
        assert client.get("/readyz").status_code == 200
        before = refused_count(client, "maxmemory")
        capsys.readouterr()

        filled = fill(raw)
        assert filled > 0
        assert_refused(client.post("/games", json={"game": "murlan"}), "maxmemory")
        assert_refused(client.post(f"/games/{waiting}/seats", json={"name": "bob"}), "maxmemory")
        r = client.post(f"/games/{game_id}/moves", json={"move": move}, headers=bearer(token))
        assert_refused(r, "maxmemory")
        # reads still work, and /healthz keeps its meaning: Redis answers
        assert client.get(f"/games/{game_id}").status_code == 200
        assert client.get(f"/games/{game_id}", headers=bearer(token)).status_code == 200
        assert client.get(f"/games/{game_id}/events").status_code == 200
        assert client.get(f"/games/{game_id}/replay").status_code == 200
        assert client.get("/games").status_code == 200
        assert client.get("/healthz").status_code == 200
        assert client.get("/livez").status_code == 200
        assert_refused(client.get("/readyz"), "maxmemory")
        assert refused_count(client, "maxmemory") >= before + 4  # 3 writes and the probe
        assert refusing(client, "maxmemory") == 1
        logged = capsys.readouterr().err
        changes = log_lines(logged, "store refusing writes")
        assert [c["reason"] for c in changes] == ["maxmemory"], logged  # once, not per request
        assert "unhandled" not in logged and '"status": 500' not in logged
        assert service.store.version(game_id) == service.load(game_id).version  # nothing landed

        for n in range(filled):  # memory freed: ready again, and the same move lands
            raw.delete(f"{FILLER}{n}")
        wait_for(
            lambda: client.get("/readyz").status_code == 200,
            time.monotonic() + 10,
            lambda: f"/readyz still {client.get('/readyz').get_json()}",
        )
        r = client.post(f"/games/{game_id}/moves", json={"move": move}, headers=bearer(token))
        assert r.status_code == 201, r.get_json()
        assert client.post("/games", json={"game": "murlan"}).status_code == 201
        assert refusing(client, "maxmemory") == 0
        back = log_lines(capsys.readouterr().err, "store accepting writes again")
        assert [b["reason"] for b in back] == ["maxmemory"]
    finally:
        server.stop()


def test_when_persistence_fails_writes_get_503_until_a_save_works(
    directory: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``MISCONF``: a save point, ``stop-writes-on-bgsave-error yes`` (Redis's
    default) and a BGSAVE that cannot write its file."""
    gone = directory / "gone"
    gone.mkdir()
    server = RedisServer(
        directory,
        *("--save", "3600 1", "--stop-writes-on-bgsave-error", "yes"),
        *("--enable-protected-configs", "yes"),  # CONFIG SET dir, on this test server only
    ).start()
    try:
        raw = server.client()
        client, service = app_on(server.url)
        game_id = client.post("/games", json={"game": "murlan"}).get_json()["game_id"]
        raw.config_set("dir", str(gone))  # Redis works in there from now on…
        gone.rmdir()  # …and its next save has nowhere to go
        raw.bgsave()
        wait_for(
            lambda: raw.info("persistence")["rdb_last_bgsave_status"] == "err",
            time.monotonic() + 10,
            lambda: f"BGSAVE did not fail: {raw.info('persistence')}",
        )
        capsys.readouterr()
        assert_refused(client.post("/games", json={"game": "murlan"}), "persistence")
        assert_refused(client.post(f"/games/{game_id}/seats", json={"name": "ann"}), "persistence")
        assert client.get(f"/games/{game_id}").status_code == 200
        assert_refused(client.get("/readyz"), "persistence")
        assert refused_count(client, "persistence") >= 3
        changes = log_lines(capsys.readouterr().err, "store refusing writes")
        assert [c["reason"] for c in changes] == ["persistence"]

        raw.config_set("dir", str(directory))  # the disk is back: a save works
        raw.bgsave()
        wait_for(
            lambda: raw.info("persistence")["rdb_last_bgsave_status"] == "ok",
            time.monotonic() + 10,
            lambda: f"BGSAVE did not recover: {raw.info('persistence')}",
        )
        assert client.get("/readyz").status_code == 200
        assert client.post(f"/games/{game_id}/seats", json={"name": "ann"}).status_code == 201
        assert log_lines(capsys.readouterr().err, "store accepting writes again")
        assert service.store.version(game_id) == 2
    finally:
        server.stop()
