"""A crowd of idle spectator streams on the deployed stream server: what each one
costs in memory, and that the seats still get in once the crowd has taken all
that spectators may.

The deployment's stream server (gunicorn, gevent workers,
``deploy/gunicorn-streams.conf.py``) behind one trusted proxy
(``CARDROOM_PROXIES=1``), so each spectator comes from an address of its own
(``X-Forwarded-For``) and the per-address cap does not stop the crowd. The
worker process's resident memory is read before and after the crowd; the
figures are printed (``-s``) for docs/operations.md.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis

from service.devstack import GUNICORN, Proc, Stack, free_port, stack_env, wait_for
from tests.testredis import TEST_REDIS

pytestmark = [pytest.mark.redis, pytest.mark.slow, pytest.mark.timeout(300)]
"""A stuck run fails with its traceback (and stops its processes) instead of hanging."""

ROOT = Path(__file__).resolve().parents[2]
CROWD_REDIS_URL = f"{TEST_REDIS}/8"
PER_ADDRESS = 16
PER_GAME = 200
MAX = 1000
SPECTATORS = 750  # 3/4 of MAX
WARM = 100
"""Streams open before the first measure (the first ones pay for buffers and pools)."""
PER_STREAM_LIMIT_KB = 10
"""Above the memory per stream docs/operations.md sizes a stream-server process
with, and well below what a stream waiting in a greenlet of its own costs (22.8
KiB here before streams were parked): the test fails if streams hold one again."""


class Deployed:
    def __init__(self, api: str, streams: str, worker: int) -> None:
        self.api = api
        self.streams = streams
        self.worker = worker

    def rss_kb(self) -> int:
        for line in Path(f"/proc/{self.worker}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise AssertionError("no VmRSS")


@pytest.fixture
def deployed() -> Iterator[Deployed]:
    client = redis.Redis.from_url(CROWD_REDIS_URL)
    try:
        client.ping()
    except redis.ConnectionError:
        pytest.skip(f"no Redis at {TEST_REDIS} (run tests/ensure-redis.sh)")
    client.flushdb()
    port = free_port()
    env = stack_env(
        CROWD_REDIS_URL,
        queue_name=f"crowd-{port}",
        CARDROOM_STREAM_BIND=f"127.0.0.1:{port}",
        CARDROOM_PROXIES="1",
        CARDROOM_STREAMS_PER_ADDRESS=str(PER_ADDRESS),
        CARDROOM_STREAMS_PER_GAME=str(PER_GAME),
        CARDROOM_STREAMS_MAX=str(MAX),
        CARDROOM_STREAM_KEEPALIVE_S="15",
    )
    made = Stack(env)
    try:
        api = made.start_api(processes=1, threads=4)
        conf = str(ROOT / "deploy" / "gunicorn-streams.conf.py")
        server: Proc = made.start_process(
            "streams", [GUNICORN, "-c", conf, "service.streams:create_app()"]
        )
        made.wait_healthy()
        url = f"http://127.0.0.1:{port}"
        wait_for(
            lambda: _answers(url) and bool(server.children()),
            time.monotonic() + 60,
            lambda: f"the stream server did not answer: {made.logs()}",
            alive=made.check_running,
        )
        yield Deployed(api, url, server.children()[0])
    finally:
        made.stop()
        client.flushdb()
        client.close()


def _answers(url: str) -> bool:
    try:
        return httpx.get(f"{url}/healthz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


class Crowd:
    """Idle spectator streams held open from one event loop, each from its own
    address (16 streams an address), each read as it goes."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.writers: list[asyncio.StreamWriter] = []
        self.statuses: list[int] = []
        self.readers: list[asyncio.Future[None]] = []
        self.lines = 0
        self.count = 0

    async def _open(self, game_id: str, n: int) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
        self.writers.append(writer)
        address = f"198.51.{n // PER_ADDRESS // 250}.{n // PER_ADDRESS % 250 + 1}"
        writer.write(
            f"GET /games/{game_id}/events HTTP/1.1\r\nHost: test\r\n"
            f"Accept: application/x-ndjson\r\nX-Forwarded-For: {address}\r\n\r\n".encode()
        )
        await writer.drain()
        status = await reader.readline()
        self.statuses.append(int(status.split()[1]))
        while await reader.readline() not in (b"\r\n", b""):
            pass
        self.readers.append(asyncio.ensure_future(self._drain(reader)))

    async def _drain(self, reader: asyncio.StreamReader) -> None:
        while data := await reader.read(65536):
            self.lines += data.count(b"\n")

    def open(self, game_ids: list[str], timeout_s: float = 120) -> None:
        first = self.count
        self.count += len(game_ids)

        async def all_of() -> None:
            for start in range(0, len(game_ids), 50):
                batch = game_ids[start : start + 50]
                await asyncio.gather(
                    *(self._open(g, first + start + i) for i, g in enumerate(batch))
                )

        asyncio.run_coroutine_threadsafe(all_of(), self.loop).result(timeout_s)

    def close(self) -> None:
        async def close_all() -> None:
            for writer in self.writers:
                writer.close()

        asyncio.run_coroutine_threadsafe(close_all(), self.loop).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


NEWCOMER = {"Accept": "application/x-ndjson", "X-Forwarded-For": "203.0.113.1"}


def assert_refused(streams: httpx.Client, game_id: str, scope: str) -> None:
    """A spectator from a new address is refused with the way on: poll meanwhile."""
    refused = streams.get(f"/games/{game_id}/events", headers=NEWCOMER)
    assert refused.status_code == 429, refused.text
    problem = refused.json()
    assert problem["scope"] == scope
    assert problem["fallback"] == "poll" and problem["poll_after_s"] == 5
    assert refused.headers["Retry-After"] == str(problem["retry_after_s"])


def settled_rss(deployed: Deployed, crowd: Crowd, lines: int) -> int:
    """The worker's RSS once every stream so far has had its first line."""
    wait_for(
        lambda: crowd.lines >= lines,
        time.monotonic() + 60,
        lambda: f"{crowd.lines} first lines of {lines}",
    )
    return deployed.rss_kb()


def test_a_crowd_of_idle_spectators_costs_little_and_leaves_the_seats_a_door(
    deployed: Deployed,
) -> None:
    with httpx.Client(base_url=deployed.api, timeout=10) as http:
        game_id = http.post("/games", json={"game": "hazari"}).json()["game_id"]
        tokens = [
            http.post(f"/games/{game_id}/seats", json={"name": f"p{i}"}).json()["token"]
            for i in range(4)
        ]
        others = [http.post("/games", json={"game": "murlan"}).json()["game_id"] for _ in range(5)]
    streams = httpx.Client(base_url=deployed.streams, timeout=30)  # two busy cores
    crowd = Crowd(int(deployed.streams.rsplit(":", 1)[1]))
    r_redis = redis.Redis.from_url(CROWD_REDIS_URL)
    try:
        empty_kb = deployed.rss_kb()
        crowd.open([others[0]] * WARM)
        warm_kb = settled_rss(deployed, crowd, WARM)
        clients_warm = int(r_redis.info("clients")["connected_clients"])
        redis_warm = int(r_redis.info("memory")["used_memory"])
        # the game being played: its spectators' cap, then the others up to the share
        crowd.open([game_id] * PER_GAME)
        assert_refused(streams, game_id, "game")
        rest = SPECTATORS - WARM - PER_GAME
        crowd.open([others[1 + i % 4] for i in range(rest)])
        assert crowd.statuses == [200] * SPECTATORS
        full_kb = settled_rss(deployed, crowd, SPECTATORS)
        clients_full = int(r_redis.info("clients")["connected_clients"])
        redis_full = int(r_redis.info("memory")["used_memory"])
        # a new spectator, of any game, is refused with the way on
        assert_refused(streams, others[0], "spectators")
        # every seat still gets its stream, its own view first
        for seat, token in enumerate(tokens):
            headers = {**NEWCOMER, "Authorization": f"Bearer {token}"}
            with streams.stream("GET", f"/games/{game_id}/events", headers=headers) as r:
                assert r.status_code == 200
                first = next(r.iter_lines())
                assert f'"seat":{seat}' in first
    finally:
        crowd.close()
        streams.close()
        r_redis.close()
    per_stream_kb = (full_kb - warm_kb) / (SPECTATORS - WARM)
    per_client = (clients_full - clients_warm) / (SPECTATORS - WARM)
    redis_kb = (redis_full - redis_warm) / 1024 / (SPECTATORS - WARM)
    print(
        f"\nstream server worker RSS: {empty_kb / 1024:.1f} MiB idle, "
        f"{warm_kb / 1024:.1f} MiB with {WARM} streams, "
        f"{full_kb / 1024:.1f} MiB with {SPECTATORS}; "
        f"{per_stream_kb:.1f} KiB per open idle stream; "
        f"{per_client:.2f} Redis connections per stream, {redis_kb:.1f} KiB of Redis memory each"
    )
    assert per_stream_kb < PER_STREAM_LIMIT_KB
