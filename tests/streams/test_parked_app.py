"""The stream server's application under the parking wrapper (service.parking.worker),
in this process on the test Redis: a seat stream is answered with its head
(the application's headers, chunked, the connection closed after it) and
opening, then parked; parked streams hold no greenlet each and little
memory; a client gone releases its stream's slot and subscriptions once,
and the worker's exit ends every stream with its terminating chunk.

No moves are made while streams are parked here (the hub's readers are
threads in this process, the writer a greenlet): the lines that follow moves
are the deployed tests' (test_hub_restart, test_stream_server).
"""

from __future__ import annotations

import gc
import logging
import socket
import tracemalloc
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import greenlet
import pytest
import redis
from flask import Flask
from werkzeug.test import EnvironBuilder

from service import streams
from service.api.live import Opened
from service.api.streamcaps import StreamSlots
from service.config import load_settings
from service.games import GameService
from service.hub import Hub
from service.parking.stream import END_CHUNK, ENDED, ParkedStream
from service.parking.worker import PARKED, Parking
from service.parking.writer import Writer
from service.runtime import Runtime
from tests.testredis import TEST_REDIS

from .parkedclient import READ_BOUND_S, Client, Clock, until

pytestmark = [pytest.mark.redis, pytest.mark.timeout(180)]

REDIS_URL = f"{TEST_REDIS}/7"
BYTES_PER_STREAM = 4096
"""What a parked idle stream may hold in this process (traced), at most: its
greenlet alone would be more (bench/README.md, "Ten thousand live streams")."""


@dataclass
class Served:
    app: Flask
    svc: GameService
    writer: Writer
    parking: Parking
    clock: Clock

    @property
    def slots(self) -> StreamSlots:
        slots: StreamSlots = self.app.extensions["cardroom_streams"]
        return slots

    @property
    def hub(self) -> Hub:
        hub: Hub = self.app.extensions["cardroom_hub"]
        return hub


@pytest.fixture
def served() -> Iterator[Served]:
    client = redis.Redis.from_url(REDIS_URL)
    try:
        client.ping()
    except redis.ConnectionError:
        pytest.skip(f"no Redis at {TEST_REDIS} (run tests/ensure-redis.sh)")
    client.flushdb()
    settings = load_settings(
        redis_url=REDIS_URL, streams_max=2000, streams_per_address=2000, streams_per_game=100
    )
    runtime = Runtime.from_settings(settings)
    app = streams.create_app(settings, runtime, {"RATELIMIT_ENABLED": False})
    clock = Clock()
    writer = Writer(clock)
    yield Served(app, runtime.service(), writer, Parking(app, writer), clock)
    writer.end_all(0)
    client.flushdb()
    client.close()


def seated(svc: GameService) -> tuple[str, list[str]]:
    state = svc.create_game("murlan")
    tokens = [svc.take_seat(state.game_id, f"p{i}").token or "" for i in range(4)]
    svc.advance(state.game_id)  # the deal
    return state.game_id, tokens


def open_stream(
    served: Served, game_id: str, token: str, protocol: str = "HTTP/1.1", path: str = ""
) -> tuple[Any, Client]:
    """The request as gunicorn would hand it to the application: the answer, and
    the client's end of the connection (gunicorn's own socket closed, as it does)."""
    server, client = socket.socketpair()
    environ = EnvironBuilder(
        path=path or f"/games/{game_id}/events",
        headers={"Accept": "application/x-ndjson", "Authorization": f"Bearer {token}"},
    ).get_environ()
    environ["SERVER_PROTOCOL"] = protocol
    environ["gunicorn.socket"] = server
    statuses: list[str] = []
    answer = served.parking(environ, lambda status, headers, exc=None: statuses.append(status))
    server.close()
    assert statuses == ["200 OK"]
    return answer, Client(client)


def stream_of(served: Served) -> ParkedStream:
    (stream,) = served.writer.streams
    return stream


def test_a_stream_is_answered_then_parked(served: Served) -> None:
    game_id, tokens = seated(served.svc)
    answer, client = open_stream(served, game_id, tokens[1])
    assert answer is PARKED
    head = client.read(b"\r\n\r\n").decode("latin-1").split("\r\n")
    assert head[0] == "HTTP/1.1 200 OK"
    fields = dict(line.split(": ", 1) for line in head[1:] if line)
    assert fields["Content-Type"] == "application/x-ndjson"
    assert fields["Cache-Control"] == "no-store" and fields["X-Accel-Buffering"] == "no"
    assert fields["Transfer-Encoding"] == "chunked" and fields["Connection"] == "close"
    assert fields["X-Request-Id"] and "Content-Length" not in fields
    size = int(client.read(b"\r\n")[:-2], 16)
    view = client.read(b"\n\r\n")
    assert len(view) == size + 2 and b'"kind":"view"' in view and b'"seat":1' in view
    assert served.slots.open == 1
    served.writer.end_all(READ_BOUND_S)
    assert client.rest() == END_CHUNK
    assert served.slots.open == 0 and not served.hub.watches


def test_an_http_1_0_client_gets_the_stream_close_delimited(served: Served) -> None:
    game_id, tokens = seated(served.svc)
    _, client = open_stream(served, game_id, tokens[0], "HTTP/1.0")
    assert client.read(b"\r\n\r\n").startswith(b"HTTP/1.0 200 OK\r\n")
    served.writer.end_all(READ_BOUND_S)
    body = client.rest()
    assert body.startswith(b'{"kind":"view"') and body.endswith(b"}\n")  # no chunk sizes


def test_a_players_stream_is_parked_too(served: Served) -> None:
    players = served.svc.store.players
    player_id, key = players.create()
    tables = [seated(served.svc) for _ in range(2)]
    for game_id, tokens in tables:
        players.bind(player_id, game_id, "murlan", 2, tokens[2])
    answer, client = open_stream(served, "", key, path="/players/me/events")
    assert answer is PARKED
    assert b"Transfer-Encoding: chunked" in client.read(b"\r\n\r\n")
    opening = client.read(b"\n\r\n")
    for game_id, _ in tables:
        assert f'{{"game_id":"{game_id}","kind":"view"'.encode() in opening
    assert served.slots.open == 1
    served.writer.end_all(READ_BOUND_S)
    assert client.rest() == END_CHUNK
    assert served.slots.open == 0 and not served.hub.watches


def test_a_stream_the_writer_cannot_take_is_not_offered_parking(served: Served) -> None:
    """Over HTTP/2 (a connection other streams share) a stream is not offered
    parking: it is the generator a greenlet waits in, as on any other server."""
    game_id, tokens = seated(served.svc)
    answer, _ = open_stream(served, game_id, tokens[0], "HTTP/2")
    assert isinstance(answer, Opened) and not served.writer.streams
    assert next(answer).startswith(b'{"kind":"view"') and served.slots.open == 1
    answer.close()
    assert served.slots.open == 0 and not served.hub.watches


def test_a_client_gone_releases_its_slot_and_subscriptions_once(served: Served) -> None:
    game_id, tokens = seated(served.svc)
    _, gone = open_stream(served, game_id, tokens[0])
    gone.opening()
    stream = stream_of(served)
    _, stays = open_stream(served, game_id, tokens[1])
    stays.opening()
    assert served.slots.open == 2
    gone.sock.close()
    served.clock.now += 3600  # both due for a keep-alive: the gone client's write fails
    served.writer.wake()
    assert b'"kind":"keepalive"' in stays.read(b"\n\r\n")
    until(lambda: stream.state == ENDED)
    stream.close()  # asked again: nothing is released twice
    assert served.slots.open == 1 and len(served.hub.feeds[game_id].subscribers) == 1
    served.writer.end_all(READ_BOUND_S)
    assert served.slots.open == 0 and not served.hub.watches


def greenlets() -> list[greenlet.greenlet]:
    """Every greenlet object of the process (other tests of the same process, the
    browser's driver among them, may leave some behind or let some go meanwhile)."""
    return [o for o in gc.get_objects() if isinstance(o, greenlet.greenlet)]


def open_all(served: Served, tables: list[tuple[str, list[str]]]) -> int:
    """A stream for every seat of ``tables``, each read to its opening; how many."""
    clients = [
        open_stream(served, game_id, token)[1] for game_id, tokens in tables for token in tokens
    ]
    for client in clients:
        client.opening()
    return len(clients)


def test_parked_idle_streams_hold_no_greenlet_and_little_memory(
    served: Served, caplog: pytest.LogCaptureFixture
) -> None:
    """Every stream over 40 tables (160 seats) opened twice: once to warm what
    is shared (each game's feed, its reader, the caches), then again, measured."""
    caplog.set_level(logging.WARNING, "cardroom.http")  # pytest would keep each request's record
    tables = [seated(served.svc) for _ in range(40)]
    open_all(served, tables)
    gc.collect()
    before_greenlets = greenlets()
    tracemalloc.start()
    try:
        before = tracemalloc.take_snapshot()
        count = open_all(served, tables)
        gc.collect()
        after = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    held = sum(d.size_diff for d in after.compare_to(before, "filename"))
    assert len(served.writer.streams) == 2 * count and served.slots.open == 2 * count
    made = [g for g in greenlets() if not any(g is b for b in before_greenlets)]
    assert made == []  # the writer's one greenlet was there already
    print(f"\n{held / count:.0f} bytes traced per parked idle stream over {count}")
    assert held / count < BYTES_PER_STREAM
    assert served.writer.end_all(READ_BOUND_S) == 2 * count
    assert served.slots.open == 0 and not served.hub.watches
