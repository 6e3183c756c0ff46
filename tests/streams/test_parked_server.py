"""The stream server as deployed (gunicorn, ``deploy/gunicorn-streams.conf.py``,
its own worker class) parks its streams: a seat stream's answer is chunked
with the application's headers, a move reaches every seat's parked stream
and the player's stream of one of them, and a SIGTERM ends every stream
with its terminating chunk (so its client resumes with ``?after=``) and the
server exits.
"""

from __future__ import annotations

import json
import socket

import pytest

from service.api import create_app
from service.config import load_settings
from service.devstack import free_port, running_stack
from service.devstack.redis_server import tools_missing
from service.runtime import Runtime

from .streamserver import start_stream_server

pytestmark = [pytest.mark.redis, pytest.mark.slow, pytest.mark.timeout(300)]

READ_BOUND_S = 30


class Chunks:
    """A raw HTTP/1.1 client of one stream: its head, then its chunks."""

    def __init__(self, port: int, path: str, token: str) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=READ_BOUND_S)
        self.sock.sendall(
            f"GET {path} HTTP/1.1\r\nHost: t\r\n"
            f"Accept: application/x-ndjson\r\nAuthorization: Bearer {token}\r\n\r\n".encode()
        )
        self.buffer = b""
        self.head = self._until(b"\r\n\r\n").decode("latin-1")

    def _until(self, mark: bytes) -> bytes:
        while mark not in self.buffer:
            data = self.sock.recv(65536)
            assert data, f"closed before {mark!r}"
            self.buffer += data
        out, _, self.buffer = self.buffer.partition(mark)
        return out

    def chunk(self) -> bytes:
        """The next chunk's data (``b""``: the last chunk)."""
        size = int(self._until(b"\r\n"), 16)
        while len(self.buffer) < size + 2:
            data = self.sock.recv(65536)
            assert data, "closed inside a chunk"
            self.buffer += data
        data, self.buffer = self.buffer[:size], self.buffer[size + 2 :]
        return data

    def lines(self) -> list[dict[str, object]]:
        return [json.loads(raw) for raw in self.chunk().splitlines()]


def test_streams_are_parked_fed_and_ended_on_sigterm() -> None:
    missing = tools_missing()
    if missing:
        pytest.skip(missing)
    with running_stack(
        workers=0, scheduler=False, api=False, CARDROOM_STREAM_KEEPALIVE_S="60"
    ) as stack:
        port = free_port()
        server = start_stream_server(stack, port, CARDROOM_STREAM_BIND=f"127.0.0.1:{port}")
        settings = load_settings(redis_url=stack.redis.url, bot_delay_s=0)
        svc = create_app(settings, Runtime.from_settings(settings)).extensions["cardroom"]
        state = svc.create_game("murlan")
        tokens = [svc.take_seat(state.game_id, f"p{i}").token or "" for i in range(4)]
        svc.advance(state.game_id)  # the deal
        clients = [Chunks(port, f"/games/{state.game_id}/events", token) for token in tokens]
        player_id, key = svc.store.players.create()
        svc.store.players.bind(player_id, state.game_id, "murlan", 0, tokens[0])
        player = Chunks(port, "/players/me/events", key)
        (view,) = player.lines()
        assert (view["game_id"], view["kind"]) == (state.game_id, "view")
        for seat, client in enumerate(clients):
            assert client.head.startswith("HTTP/1.1 200 OK\r\n")
            assert "Transfer-Encoding: chunked" in client.head
            assert "Content-Type: application/x-ndjson" in client.head
            assert "X-Request-Id: " in client.head and "Connection: close" in client.head
            (view,) = client.lines()
            assert view["kind"] == "view" and view["view"]["seat"] == seat  # type: ignore[index]
        version = svc.store.version(state.game_id)
        current = svc.load(state.game_id)
        seat = min(current.engine.to_act(current.engine_state))
        svc.submit_move(
            state.game_id, seat, current.engine.legal_moves(current.engine_state, seat)[0]
        )
        for client in clients:
            got = client.lines()
            assert [line["version"] for line in got] == [version + 1]
        (event,) = player.lines()
        assert (event["game_id"], event["version"]) == (state.game_id, version + 1)
        server.terminate()
        for client in [*clients, player]:
            assert client.chunk() == b""  # the terminating chunk
            assert client.sock.recv(1) == b""  # then the connection closes
        assert server.stop(READ_BOUND_S) == 0  # it had exited: nothing was left to kill
