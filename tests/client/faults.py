"""Transports that break what a network breaks, for the client's tests."""

from __future__ import annotations

from collections.abc import Iterator

import httpx


class _Lines(httpx.SyncByteStream):
    """A live stream's body cut (a reset connection) after ``limit`` lines."""

    def __init__(self, inner: httpx.SyncByteStream, limit: int, owner: DroppingTransport) -> None:
        self.inner, self.limit, self.owner = inner, limit, owner

    def __iter__(self) -> Iterator[bytes]:
        sent, pending = 0, b""
        for chunk in self.inner:
            pending += chunk
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                yield line + b"\n"
                sent += 1
                if sent >= self.limit:
                    self.owner.drops += 1
                    raise httpx.ReadError("connection reset (forced)")

    def close(self) -> None:
        self.inner.close()


class DroppingTransport(httpx.HTTPTransport):
    """Every NDJSON stream is dropped after ``every`` lines."""

    def __init__(self, every: int) -> None:
        super().__init__()
        self.every = every
        self.drops = 0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = super().handle_request(request)
        if "ndjson" in response.headers.get("content-type", ""):
            assert isinstance(response.stream, httpx.SyncByteStream)
            response.stream = _Lines(response.stream, self.every, self)
        return response


class LosingTransport(httpx.HTTPTransport):
    """The answer to the first request matching ``path_end`` is lost after the
    server has handled it (as a connection reset on the way back would)."""

    def __init__(self, path_end: str) -> None:
        super().__init__()
        self.path_end = path_end
        self.lost: list[httpx.Response] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = super().handle_request(request)
        if not self.lost and request.url.path.endswith(self.path_end):
            response.read()
            self.lost.append(response)
            raise httpx.ReadError("connection reset before the answer (forced)")
        return response
