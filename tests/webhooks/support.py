"""What the webhook tests share: a receiver on loopback, a guard that no
connection leaves loopback, a resolver that never asks DNS, and playing a game."""

from __future__ import annotations

import ipaddress
import json
import random
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
from flask.testing import FlaskClient

from service.webhooks.outbound import Outbound
from service.webhooks.urls import Policy

NAMES: dict[str, list[str]] = {
    "receiver.test": ["127.0.0.1"],
    "private.test": ["10.1.2.3"],
    "mixed.test": ["93.184.216.34", "192.168.1.7"],
    "public.test": ["93.184.216.34"],
    "metadata.test": ["169.254.169.254"],
}
"""The stub resolver's answers; any other name does not resolve."""


def stub_resolver(host: str, port: int) -> list[str]:
    return list(NAMES.get(host, []))


def is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host.strip("[]").split("%")[0]).is_loopback
    except ValueError:
        return False


@dataclass
class Guard:
    """Records every attempt to connect anywhere but loopback (and refuses it)."""

    refused: list[str] = field(default_factory=list)

    def check(self, host: str) -> None:
        if not is_loopback(host):
            self.refused.append(host)
            raise AssertionError(f"a test tried to connect to {host}")


class GuardTransport(httpx.HTTPTransport):
    guard = Guard()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.guard.check(request.url.host)
        return super().handle_request(request)


def guarded_outbound(guard: Guard, **policy: Any) -> Outbound:
    class Transport(GuardTransport):
        pass

    Transport.guard = guard
    return Outbound(
        policy=Policy(**{"http_loopback": True, **policy}),
        resolve=stub_resolver,
        transport=Transport,
        timeout_s=2.0,
    )


def guard_sockets(monkeypatch: Any, guard: Guard) -> None:
    """Make every ``socket.connect`` of this process to a non-loopback address fail the test."""
    real = socket.socket.connect

    def connect(self: socket.socket, address: Any) -> None:
        if self.family in (socket.AF_INET, socket.AF_INET6):
            guard.check(str(address[0]))
        real(self, address)

    monkeypatch.setattr(socket.socket, "connect", connect)


@dataclass
class Hit:
    path: str
    headers: dict[str, str]
    body: bytes
    at: float


class Receiver:
    """An HTTP receiver on loopback; answers from :attr:`answers` (then 200)."""

    def __init__(self) -> None:
        self.hits: list[Hit] = []
        self.answers: list[int | tuple[int, dict[str, str]]] = []
        self.hang = threading.Event()
        """While set, requests are read and then not answered (until cleared)."""
        self.cond = threading.Condition()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                at = time.monotonic()
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with receiver.cond:
                    receiver.hits.append(Hit(self.path, dict(self.headers), raw, at))
                    answer = receiver.answers.pop(0) if receiver.answers else 200
                    receiver.cond.notify_all()
                while receiver.hang.is_set():
                    receiver.hang.wait(0.05)  # held open until released
                    if receiver.hang.is_set() and self.server.stopping:  # type: ignore[attr-defined]
                        return
                status, headers = answer if isinstance(answer, tuple) else (answer, {})
                text = b"ok" if status < 400 else b"nope"
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(text)))
                self.end_headers()
                self.wfile.write(text)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.stopping = False  # type: ignore[attr-defined]
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str = "/hook") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def wait_for(self, done: Callable[[list[Hit]], bool], timeout_s: float = 10.0) -> list[Hit]:
        deadline = time.monotonic() + timeout_s
        with self.cond:
            while not done(self.hits):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"the receiver got {len(self.hits)} deliveries")
                self.cond.wait(left)
            return list(self.hits)

    def payloads(self) -> list[dict[str, Any]]:
        with self.cond:
            return [json.loads(h.body) for h in self.hits]

    def close(self) -> None:
        self.server.stopping = True  # type: ignore[attr-defined]
        self.hang.clear()
        self.server.shutdown()
        self.server.server_close()


def eventually(done: Callable[[], bool], timeout_s: float = 10.0, what: str = "") -> None:
    """Until ``done()`` holds, looking again every 20 ms, for at most ``timeout_s``
    (for what the workers write and nothing signals)."""
    deadline = time.monotonic() + timeout_s
    pause = threading.Event()
    while not done():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout_s} s: {what or done}")
        pause.wait(0.02)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def subscribe(
    client: FlaskClient, game_id: str, token: str, url: str, events: list[str] | None = None
) -> dict[str, Any]:
    r = client.post(
        f"/games/{game_id}/webhooks",
        json={"url": url, "events": events or ["turn_started"]},
        headers=bearer(token),
    )
    assert r.status_code == 201, r.get_json()
    data: dict[str, Any] = r.get_json()
    r.close()
    return data


def open_table(
    client: FlaskClient, game: str, options: dict[str, Any], seats: int | None
) -> tuple[str, list[str]]:
    body: dict[str, Any] = {"game": game, "options": options}
    if seats is not None:
        body["seats"] = seats
    created = client.post("/games", json=body).get_json()
    return created["game_id"], []


def take_seats(client: FlaskClient, game_id: str, count: int) -> list[str]:
    tokens = []
    for i in range(count):
        r = client.post(f"/games/{game_id}/seats", json={"name": f"p{i}", "client_seed": f"s{i}"})
        assert r.status_code == 201, r.get_json()
        tokens.append(r.get_json()["token"])
        r.close()  # the answer has gone out: its follow-ups are sent
    return tokens


def play_out(
    client: FlaskClient,
    wait: Callable[[str, int], None],
    game_id: str,
    tokens: list[str],
    rng: random.Random,
    max_moves: int = 2000,
    until: Callable[[dict[str, Any]], bool] | None = None,
) -> dict[str, Any]:
    """Random legal moves until the game ends (or ``until``), waiting on the
    stream for the workers' steps (never sleeping)."""
    view: dict[str, Any] = client.get(f"/games/{game_id}").get_json()
    for _ in range(max_moves):
        view = client.get(f"/games/{game_id}").get_json()
        if view["status"] == "ended" or (until is not None and until(view)):
            return view
        moved = False
        for seat in view["to_act"]:
            mine = client.get(f"/games/{game_id}", headers=bearer(tokens[seat])).get_json()
            legal = mine.get("legal_moves") or []
            if legal and mine["version"] == view["version"]:
                r = client.post(
                    f"/games/{game_id}/moves",
                    json={"move": rng.choice(legal), "expected_version": view["version"]},
                    headers=bearer(tokens[seat]),
                )
                moved = r.status_code == 201
                r.close()  # the answer has gone out: its follow-ups are sent
                break
        if not moved:
            wait(game_id, view["version"])
    raise AssertionError(f"game {game_id} did not end in {max_moves} moves")


def iter_strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield str(k)
            yield from iter_strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from iter_strings(v)
