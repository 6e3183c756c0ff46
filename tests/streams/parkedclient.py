"""What the parked streams' tests share: the test's clock for the writer, and
the client's end of a parked stream's connection (a gevent socket)."""

from __future__ import annotations

import socket
from collections.abc import Callable

import gevent
from gevent import socket as gsocket

READ_BOUND_S = 20
"""How long a read may wait before the test fails instead of hanging (not a measure)."""


class Clock:
    """The writer's clock, moved by the test: keep-alives and a write's patience
    come due when it moves, never by waiting."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def until(done: Callable[[], bool]) -> None:
    """Let the writer run until ``done`` (bounded, so that a failure does not hang)."""
    with gevent.Timeout(READ_BOUND_S):
        while not done():
            gevent.sleep(0)


class Client:
    """The client's end of a parked stream's connection."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = gsocket.socket(fileno=sock.detach())
        self.got = b""

    def read(self, until: bytes) -> bytes:
        """Read until ``until`` has come (what came before it included)."""
        with gevent.Timeout(READ_BOUND_S):
            while until not in self.got:
                data = self.sock.recv(65536)
                assert data, f"closed before {until!r}; got {self.got!r}"
                self.got += data
        head, _, self.got = self.got.partition(until)
        return head + until

    def opening(self) -> bytes:
        """The answer's head, then its first chunk (an opening's lines end in a newline)."""
        self.read(b"\r\n\r\n")
        return self.read(b"\n\r\n")

    def rest(self) -> bytes:
        """Everything until the server closes the connection."""
        with gevent.Timeout(READ_BOUND_S):
            while data := self.sock.recv(65536):
                self.got += data
        out, self.got = self.got, b""
        return out
