"""The stream server keeps 500 live streams open while a client plays a whole game.

The deployment's processes on the real Redis: the stream server (gunicorn,
gevent workers, ``deploy/gunicorn-streams.conf.py``), the API (gunicorn,
threads, ``deploy/gunicorn.conf.py``) and a worker. 500 streams (loopback
only) are held open on the stream server, half on the game being played;
meanwhile a client plays a whole game through the API, reading its seats'
views between moves: every stream stays open and fed, the whole game is
played, and once the caps are reached a stream more gets a 429. How fast
the views stay meanwhile is a figure (printed here; the target and its
measurement are ``python -m bench.bench_streams``, "the API's p99 meanwhile").
"""

from __future__ import annotations

import asyncio
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
import redis

from service.devstack import GUNICORN, Stack, free_port, stack_env, wait_for
from tests.testredis import TEST_REDIS

from .streamserver import answers

pytestmark = [pytest.mark.redis, pytest.mark.slow, pytest.mark.timeout(600)]
"""A stuck run fails with its traceback (and stops its processes) instead of hanging."""

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
STREAMS_REDIS_URL = f"{TEST_REDIS}/7"
STREAMS = 500


@dataclass
class Deployment:
    api: str
    streams: str


@pytest.fixture
def stack() -> Iterator[Deployment]:
    client = redis.Redis.from_url(STREAMS_REDIS_URL)
    try:
        client.ping()
    except redis.ConnectionError:
        pytest.skip(f"no Redis at {TEST_REDIS} (run tests/ensure-redis.sh)")
    client.flushdb()
    stream_port = free_port()
    env = stack_env(
        STREAMS_REDIS_URL,
        queue_name=f"streams-{stream_port}",
        CARDROOM_STREAM_BIND=f"127.0.0.1:{stream_port}",
        CARDROOM_STREAMS_PER_ADDRESS=str(STREAMS + 4),
        CARDROOM_STREAMS_PER_GAME=str(STREAMS + 1),
        CARDROOM_STREAMS_MAX=str(STREAMS + 2),
        CARDROOM_STREAMS_SPECTATOR_SHARE="1",  # all but one slot: kept for seats
    )
    made = Stack(env)
    try:
        api = made.start_api(processes=2, threads=16)
        conf = str(ROOT / "deploy" / "gunicorn-streams.conf.py")
        made.start_process("streams", [GUNICORN, "-c", conf, "service.streams:create_app()"])
        made.start_worker()
        made.wait_healthy()
        streams = f"http://127.0.0.1:{stream_port}"
        wait_for(
            lambda: answers(streams),
            time.monotonic() + 60,
            lambda: f"the stream server did not answer: {made.logs()}",
            alive=made.check_running,
        )
        yield Deployment(api, streams)
    finally:
        made.stop()
        client.flushdb()
        client.close()


class Streams:
    """Live streams held open from one thread's event loop, each read as it goes."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.writers: list[asyncio.StreamWriter] = []
        self.statuses: list[int] = []
        self.readers: list[asyncio.Future[None]] = []
        self.lines = 0

    async def _open(self, game_id: str) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
        self.writers.append(writer)
        writer.write(
            f"GET /games/{game_id}/events HTTP/1.1\r\nHost: test\r\n"
            "Accept: application/x-ndjson\r\n\r\n".encode()
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

    def open(self, game_ids: list[str], timeout_s: float = 60) -> None:
        async def all_of() -> None:
            for start in range(0, len(game_ids), 50):
                await asyncio.gather(*(self._open(g) for g in game_ids[start : start + 50]))

        asyncio.run_coroutine_threadsafe(all_of(), self.loop).result(timeout_s)

    def close(self) -> None:
        async def close_all() -> None:
            for writer in self.writers:
                writer.close()

        asyncio.run_coroutine_threadsafe(close_all(), self.loop).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


def test_500_open_streams_stay_fed_while_a_whole_game_is_played(stack: Deployment) -> None:
    with httpx.Client(base_url=stack.api, timeout=10) as http:
        created = http.post("/games", json={"game": "murlan"})
        game_id = created.json()["game_id"]
        others = [http.post("/games", json={"game": "murlan"}).json()["game_id"] for _ in range(5)]
        tokens = [
            http.post(f"/games/{game_id}/seats", json={"name": f"p{i}"}).json()["token"]
            for i in range(4)
        ]
        port = int(stack.streams.rsplit(":", 1)[1])
        streams = Streams(port)
        try:
            targets = [game_id] * (STREAMS // 2) + [
                others[i % len(others)] for i in range(STREAMS - STREAMS // 2)
            ]
            streams.open(targets)
            assert streams.statuses == [200] * STREAMS
            # the caps: the spectators' last slot, then one spectator more; the slot kept
            # for seats, then one stream more than the process may hold
            extra = httpx.Client(base_url=stack.streams, timeout=10)
            ndjson = {"Accept": "application/x-ndjson"}
            seat = {**ndjson, "Authorization": f"Bearer {tokens[0]}"}
            path = f"/games/{game_id}/events"
            with extra, extra.stream("GET", path, headers=ndjson) as last:
                assert last.status_code == 200
                refused = extra.get(path, headers=ndjson)
                assert refused.status_code == 429
                assert refused.headers["content-type"] == "application/problem+json"
                assert refused.json()["scope"] == "spectators"
                with extra.stream("GET", path, headers=seat) as kept:
                    assert kept.status_code == 200
                    refused = extra.get(
                        path, headers={**ndjson, "Authorization": f"Bearer {tokens[1]}"}
                    )
                    assert refused.status_code == 429
                    assert refused.json()["scope"] == "process"
            latencies: list[float] = []
            moves = 0
            deadline = time.monotonic() + 240
            status = "playing"
            while status != "ended":
                assert time.monotonic() < deadline, "the game did not end"
                moved = False
                for token in tokens:
                    started = time.perf_counter()
                    r = http.get(f"/games/{game_id}", headers={"Authorization": f"Bearer {token}"})
                    latencies.append(time.perf_counter() - started)
                    assert r.status_code == 200, r.text
                    view = r.json()
                    status = view["status"]
                    if view["legal_moves"]:
                        m = http.post(
                            f"/games/{game_id}/moves",
                            json={"move": view["legal_moves"][0]},
                            headers={"Authorization": f"Bearer {token}"},
                        )
                        assert m.status_code in (201, 409), m.text
                        moves += 1
                        moved = True
                if not moved and status != "ended":
                    time.sleep(0.02)  # a deal is the worker's step: poll for it
            assert streams.statuses == [200] * STREAMS
            assert streams.lines >= STREAMS  # every stream got at least its first view
            assert http.get("/healthz").status_code == 200
        finally:
            streams.close()
    latencies.sort()
    p50 = latencies[len(latencies) // 2]
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    print(
        f"\n{STREAMS} open streams; {moves} moves, {len(latencies)} views: "
        f"p50 {p50 * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms, max {latencies[-1] * 1000:.1f} ms"
    )
