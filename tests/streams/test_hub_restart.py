"""The deployed stream server (gunicorn, gevent) on a private Redis: 2,000 seat
streams over 250 tables survive a forced Redis restart with no gap, no
duplicate and no line of another seat's, on a handful of Redis connections;
and a client that stops reading is dropped without delaying the others.

Redis is this test's own (the deploy's config and ACL, on a free port), so
it may be restarted; moves are made in this process on the same Redis.
"""

from __future__ import annotations

import asyncio
import json
import random
import resource
import socket
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from service.api import create_app
from service.bodies import event_json
from service.config import load_settings
from service.devstack import Stack, free_port, running_stack, wait_for
from service.devstack.redis_server import acl_with_admin, tools_missing
from service.engines import table
from service.games import GameService
from service.runtime import Runtime

from .streamserver import start_stream_server

pytestmark = [
    pytest.mark.redis,
    pytest.mark.slow,
    pytest.mark.timeout(900),
    pytest.mark.xdist_group("hub-restart"),
]

TABLES = 250
STREAMS_PER_SEAT = 2
STREAMS = TABLES * 4 * STREAMS_PER_SEAT
MAX_PENDING = 8
WRITE_TIMEOUT_S = 2


@dataclass
class Deployed:
    stack: Stack
    streams_port: int
    svc: GameService
    admin: Any


@pytest.fixture(scope="module")
def deployed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployed]:
    missing = tools_missing()
    if missing:
        pytest.skip(missing)
    raise_open_files(STREAMS + 1000)  # this process holds every client's socket
    acl = acl_with_admin(tmp_path_factory.mktemp("acl"))
    port = free_port()
    with running_stack(
        workers=0,
        scheduler=False,
        api=False,
        aclfile=acl,
        redis_options=("--appendfsync", "everysec"),
        CARDROOM_STREAM_BIND=f"127.0.0.1:{port}",
        CARDROOM_PROXIES="1",
        CARDROOM_STREAMS_MAX=str(STREAMS + 500),
        CARDROOM_STREAMS_PER_SEAT="3",
        CARDROOM_STREAM_KEEPALIVE_S="2",
        CARDROOM_STREAM_MAX_PENDING=str(MAX_PENDING),
        CARDROOM_STREAM_WRITE_TIMEOUT_S=str(WRITE_TIMEOUT_S),
    ) as stack:
        start_stream_server(stack, port)
        settings = load_settings(redis_url=stack.redis.url, bot_delay_s=0)
        app = create_app(settings, Runtime.from_settings(settings), {"TESTING": True})
        admin = stack.redis.admin_client()
        try:
            yield Deployed(stack, port, app.extensions["cardroom"], admin)
        finally:
            admin.close()


def raise_open_files(needed: int) -> None:
    """Raise this process's open-files limit to its hard limit, as the stream server
    does its own; fail, saying so, where even that cannot hold ``needed``."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < needed:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        soft = hard
    assert soft == resource.RLIM_INFINITY or soft >= needed, (
        f"the open-files limit ({soft}) cannot hold {needed} sockets: raise `ulimit -Hn`"
    )


@dataclass
class Follower:
    """One seat stream: what it was shown, in order, across reconnections."""

    game_id: str
    seat: int
    token: str
    address: str
    opened_at: int | None = None
    events: list[dict[str, Any]] = field(default_factory=list)
    connections: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def last(self) -> int:
        if self.events:
            return int(self.events[-1]["version"])
        return self.opened_at or 0


class Crowd:
    """Seat streams on one event loop, each reconnecting with ``?after=`` when
    its stream ends (HTTP/1.0: no chunks, the stream ends with the connection)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.stopping = False
        self.tasks: list[asyncio.Future[None]] = []
        self.refusals: Counter[bytes] = Counter()
        self.failures: Counter[str] = Counter()  # connections that failed, by why

    def start(self, followers: list[Follower]) -> None:
        async def all_of() -> None:
            for f in followers:
                self.tasks.append(asyncio.ensure_future(self._follow(f)))
                await asyncio.sleep(0)

        asyncio.run_coroutine_threadsafe(all_of(), self.loop).result(30)

    async def _follow(self, f: Follower) -> None:
        backoff = 0.5  # doubled at each refusal, up to 8 s, as a client should
        while not self.stopping:
            query = "" if f.opened_at is None else f"?after={f.last}"
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
            except OSError as exc:
                self.failures[f"connect: {exc.strerror or type(exc).__name__}"] += 1
                await asyncio.sleep(0.5 + random.random())
                continue
            writer.write(
                f"GET /games/{f.game_id}/events{query} HTTP/1.0\r\nHost: test\r\n"
                f"Accept: application/x-ndjson\r\nAuthorization: Bearer {f.token}\r\n"
                f"X-Forwarded-For: {f.address}\r\n\r\n".encode()
            )
            try:
                status = await reader.readline()
                while await reader.readline() not in (b"\r\n", b""):
                    pass
                if b" 200 " in status:
                    f.connections += 1
                    backoff = 0.5
                    await self._lines(f, reader)
                else:  # Redis away (503), or the seat's old stream not yet closed (429)
                    self.refusals[status.split(b" ")[1] if b" " in status else status] += 1
                    await asyncio.sleep(backoff * (0.5 + random.random()))
                    backoff = min(8.0, backoff * 2)
            except (OSError, asyncio.IncompleteReadError) as exc:
                self.failures[f"read: {type(exc).__name__}"] += 1
                await asyncio.sleep(0.2)
            finally:
                writer.close()

    async def _lines(self, f: Follower, reader: asyncio.StreamReader) -> None:
        while raw := await reader.readline():
            line = json.loads(raw)
            if line["kind"] == "view" and f.opened_at is None:
                f.opened_at = line["version"]
                if line["view"].get("seat") != f.seat:
                    f.problems.append(f"a view of seat {line['view'].get('seat')}")
            elif line["kind"] == "event":
                if line["version"] != f.last + 1:
                    f.problems.append(f"version {line['version']} after {f.last}")
                f.events.append(line["event"])

    def stop(self) -> None:
        self.stopping = True

        async def cancel() -> None:
            for task in self.tasks:
                task.cancel()
            await asyncio.gather(*self.tasks, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(cancel(), self.loop).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


def seated_tables(svc: GameService, count: int) -> list[tuple[str, list[str]]]:
    out = []
    for _ in range(count):
        state = svc.create_game("murlan")
        tokens = [svc.take_seat(state.game_id, f"p{i}").token or "" for i in range(4)]
        svc.advance(state.game_id)  # the deal
        out.append((state.game_id, tokens))
    return out


def move_once(svc: GameService, game_id: str) -> None:
    svc.advance(game_id)
    state = svc.load(game_id)
    seat = min(state.engine.to_act(state.engine_state))
    legal = state.engine.legal_moves(state.engine_state, seat)
    svc.submit_move(game_id, seat, legal[0])


def expected_events(svc: GameService, game_id: str, seat: int, after: int) -> list[Any]:
    """Every event after ``after`` as the seat may see it, each redacted against the
    state right after it (the stream's rule), folded here from the stored events."""
    state = None
    out = []
    for stored in svc.store.read(game_id):
        state = table.apply(state, stored.event)
        if stored.version > after:
            shown = table.redact(state, stored.event, seat)
            out.append(json.loads(json.dumps(event_json(stored.version, shown, stored.at_ms))))
    return out


def reached(followers: list[Follower], versions: dict[str, int]) -> bool:
    return all(f.last >= versions[f.game_id] for f in followers)


def test_two_thousand_streams_survive_a_redis_restart(deployed: Deployed) -> None:
    svc = deployed.svc
    tables = seated_tables(svc, TABLES)
    followers = [
        Follower(gid, seat, token, f"198.51.{n // 2000}.{n // 8 % 250 + 1}")
        for n, (gid, seat, token) in enumerate(
            (gid, seat, token)
            for gid, tokens in tables
            for seat, token in enumerate(tokens)
            for _ in range(STREAMS_PER_SEAT)
        )
    ]
    baseline = int(deployed.admin.info("clients")["connected_clients"])
    crowd = Crowd(deployed.streams_port)
    try:
        crowd.start(followers)
        deadline = time.monotonic() + 300  # bounded, not timed (the machine may be busy)
        wait_for(
            lambda: all(f.opened_at is not None for f in followers),
            deadline,
            lambda: (
                f"{sum(f.opened_at is None for f in followers)} streams not open;"
                f" refused {crowd.refusals}; failed {crowd.failures}"
            ),
        )
        for gid, _ in tables:
            move_once(svc, gid)
        versions = {gid: svc.store.version(gid) for gid, _ in tables}
        wait_for(lambda: reached(followers, versions), deadline, lambda: "moves not delivered")
        clients = int(deployed.admin.info("clients")["connected_clients"]) - baseline
        # the stream server's pool and readers, this process's client, the admin: a handful
        assert clients <= 20, f"{clients} Redis connections for {STREAMS} streams"
        started = time.monotonic()
        deployed.stack.redis.restart()  # SIGTERM (the AOF written), then up on the same port
        print(f"\nrestart took {time.monotonic() - started:.1f} s")
        for gid, _ in tables:
            move_once(svc, gid)
        versions = {gid: svc.store.version(gid) for gid, _ in tables}
        deadline = time.monotonic() + 300
        wait_for(
            lambda: reached(followers, versions),
            deadline,
            lambda: f"{sum(f.last < versions[f.game_id] for f in followers)} streams behind",
        )
        print(f"delivered {time.monotonic() - started:.1f} s after; refused {crowd.refusals}")
    finally:
        crowd.stop()
    problems = [(f.game_id, f.seat, p) for f in followers for p in f.problems]
    assert not problems, problems[:10]
    resumed = sum(f.connections > 1 for f in followers)
    checked: dict[tuple[str, int], list[Any]] = {}
    for f in followers:
        assert f.opened_at is not None
        key = (f.game_id, f.seat)
        if key not in checked:
            checked[key] = expected_events(svc, f.game_id, f.seat, f.opened_at)
        # no gap, no duplicate, and every line as this seat may see it, not another's
        assert f.events == checked[key], (f.game_id, f.seat)
    print(f"\n{STREAMS} streams; {resumed} resumed after the restart; {clients} connections")


def test_a_client_that_stops_reading_is_dropped_and_holds_no_one(deployed: Deployed) -> None:
    svc = deployed.svc
    ((gid, tokens),) = seated_tables(svc, 1)
    fast = [Follower(gid, seat, tokens[seat], f"203.0.113.{seat + 1}") for seat in range(4)]
    crowd = Crowd(deployed.streams_port)
    slow = socket.socket()
    slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    slow.connect(("127.0.0.1", deployed.streams_port))
    slow.sendall(
        f"GET /games/{gid}/events?views=true HTTP/1.0\r\nHost: t\r\n"
        "Accept: application/x-ndjson\r\nX-Forwarded-For: 203.0.113.9\r\n\r\n".encode()
    )
    try:
        crowd.start(fast)
        wait_for(lambda: all(f.opened_at is not None for f in fast), time.monotonic() + 30, str)
        slowest = 0.0
        for _ in range(60):  # the slow client's buffers fill, then its queue
            move_once(svc, gid)
            version = svc.store.version(gid)
            moved = time.monotonic()
            wait_for(lambda v=version: all(f.last >= v for f in fast), moved + 10, str)
            slowest = max(slowest, time.monotonic() - moved)
        # the slow stream was dropped: what it was sent ends, and the connection closes
        slow.settimeout(WRITE_TIMEOUT_S * 5)
        received = b""
        deadline = time.monotonic() + 60  # keep-alives every 2 s would go on if it were open
        while chunk := slow.recv(65536):
            received += chunk
            assert time.monotonic() < deadline, "the slow stream was never dropped"
    finally:
        crowd.stop()
        slow.close()
    body = received.split(b"\r\n\r\n", 1)[1]
    complete = body[: body.rfind(b"\n") + 1]  # a write cut by the timeout may end mid-line
    lines = [json.loads(raw) for raw in complete.splitlines() if raw]
    shown = [line["version"] for line in lines if line["kind"] == "event"]
    assert shown == list(range(shown[0], shown[-1] + 1)) and shown[-1] < version
    assert all(f.events == expected_events(svc, gid, f.seat, f.opened_at or 0) for f in fast)
    print(f"\nthe slowest move reached the 4 other streams in {slowest * 1000:.0f} ms")
