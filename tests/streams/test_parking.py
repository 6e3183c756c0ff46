"""The writer of parked streams (service.parking) on real socket pairs, under
gevent: chunk framing and order, keep-alives from its schedule, a partial
write resumed, a slow client dropped without delaying another, a client gone
letting go of everything once, and every stream ended with its terminating
chunk when the worker exits.

The writer's clock is the test's: a keep-alive or a write's patience comes
due when the test moves the clock, never by waiting.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator

import gevent
import pytest

from service.parking.stream import END_CHUNK, ENDED, ParkedStream, chunk, response_head
from service.parking.worker import parkable
from service.parking.writer import Writer

from .parkedclient import READ_BOUND_S, Client, Clock, until


class FakeLines:
    """A stream's lines as the test queues them."""

    def __init__(self) -> None:
        self.queued: list[tuple[str, bool]] = []
        self.kept: str | None = "k\n"
        self.closed = 0

    def take(self) -> tuple[str, bool]:
        text = "".join(t for t, _ in self.queued)
        over = any(o for _, o in self.queued)
        self.queued.clear()
        return text, over

    def keepalive(self) -> str | None:
        return self.kept

    def close(self) -> None:
        self.closed += 1


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def writer(clock: Clock) -> Iterator[Writer]:
    made = Writer(clock)
    made.keepalive_s, made.write_timeout_s = 15.0, 30.0
    yield made
    made.end_all(0)


def park(
    writer: Writer, opening: str = "open\n", chunked: bool = True, sndbuf: int | None = None
) -> tuple[ParkedStream, FakeLines, Client, list[str]]:
    server, client = socket.socketpair()
    if sndbuf is not None:
        server.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, sndbuf)
        client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, sndbuf)
    server.setblocking(False)
    stream = writer.stream(writer.keepalive_s, writer.write_timeout_s)
    lines = FakeLines()
    stream.opened(opening, lines)
    closed: list[str] = []
    stream.on_close(lambda: closed.append("released"))
    writer.park(stream, server, b"HEAD\r\n\r\n", chunked)
    return stream, lines, Client(client), closed


def say(stream: ParkedStream, lines: FakeLines, text: str, over: bool = False) -> None:
    lines.queued.append((text, over))
    stream.set()


def test_lines_are_chunks_in_order_and_the_end_is_the_last_chunk(writer: Writer) -> None:
    stream, lines, client, closed = park(writer)
    assert client.read(chunk(b"open\n")) == b"HEAD\r\n\r\n" + chunk(b"open\n")
    say(stream, lines, "a\n")
    say(stream, lines, "b\n")
    assert client.read(b"b\n\r\n") in (chunk(b"a\nb\n"), chunk(b"a\n") + chunk(b"b\n"))
    say(stream, lines, "c\n", over=True)
    assert client.rest() == chunk(b"c\n") + END_CHUNK  # then the connection closes
    assert stream.state == ENDED and stream not in writer.streams
    assert (lines.closed, closed) == (1, ["released"])


def test_http_1_0_is_close_delimited(writer: Writer) -> None:
    stream, lines, client, _ = park(writer, chunked=False)
    say(stream, lines, "a\n", over=True)
    assert client.rest() == b"HEAD\r\n\r\nopen\na\n"


def test_a_stream_with_no_lines_ends_after_its_opening(writer: Writer) -> None:
    server, client = socket.socketpair()
    server.setblocking(False)
    stream = writer.stream(15, 30)
    stream.opened("view\nend\n", None)
    writer.park(stream, server, b"H\r\n\r\n", True)
    assert Client(client).rest() == b"H\r\n\r\n" + chunk(b"view\nend\n") + END_CHUNK


def test_a_quiet_stream_gets_a_keepalive_and_a_busy_one_does_not(
    writer: Writer, clock: Clock
) -> None:
    _, _, quiet_client, _ = park(writer)
    busy, busy_lines, busy_client, _ = park(writer)
    quiet_client.read(chunk(b"open\n"))
    busy_client.read(chunk(b"open\n"))
    clock.now += 10
    say(busy, busy_lines, "moved\n")
    busy_client.read(chunk(b"moved\n"))
    clock.now += 6  # 16 s since the quiet one wrote, 6 since the busy one did
    writer.wake()
    assert quiet_client.read(chunk(b"k\n")) == chunk(b"k\n")
    say(busy, busy_lines, "marker\n")
    assert busy_client.read(chunk(b"marker\n")) == chunk(b"marker\n")  # no keep-alive before it
    clock.now += 16  # now the busy one has been quiet for 16 s too (since the marker)
    writer.wake()
    assert busy_client.read(chunk(b"k\n")) == chunk(b"k\n")
    # one live entry a stream, and at most a stale one
    assert len(writer.schedule) <= 2 * len(writer.streams)


def test_a_keepalive_that_finds_the_table_gone_ends_the_stream(
    writer: Writer, clock: Clock
) -> None:
    _, lines, client, closed = park(writer)
    client.read(chunk(b"open\n"))
    lines.kept = None
    clock.now += 16
    writer.wake()
    assert client.rest() == END_CHUNK
    assert (lines.closed, closed) == (1, ["released"])


def test_a_partial_write_is_resumed_and_a_blocked_stream_delays_no_other(writer: Writer) -> None:
    big = "x" * 400_000 + "\n"
    slow, slow_lines, slow_client, _ = park(writer, sndbuf=4096)
    fast, fast_lines, fast_client, _ = park(writer)
    slow_client.read(chunk(b"open\n"))
    fast_client.read(chunk(b"open\n"))
    say(slow, slow_lines, big)
    until(lambda: slow.watcher is not None)
    assert slow.out  # its client reads nothing yet
    say(slow, slow_lines, "after\n")  # not taken while the write waits
    say(fast, fast_lines, "quick\n")
    assert fast_client.read(chunk(b"quick\n")) == chunk(b"quick\n")
    assert slow.watcher is not None and slow_lines.queued  # still waiting meanwhile
    got = slow_client.read(b"after\n\r\n")
    assert got == chunk(big.encode()) + chunk(b"after\n")
    assert slow.watcher is None and slow.out is None


def test_a_client_that_takes_nothing_is_dropped_at_the_write_timeout(
    writer: Writer, clock: Clock
) -> None:
    slow, slow_lines, slow_client, closed = park(writer, sndbuf=4096)
    other, other_lines, other_client, _ = park(writer)
    say(slow, slow_lines, "y" * 400_000 + "\n")
    until(lambda: slow.watcher is not None)
    clock.now += 31
    writer.wake()
    other_client.read(chunk(b"open\n"))
    say(other, other_lines, "still\n")
    other_client.read(chunk(b"still\n"))
    assert slow.state == ENDED and slow.watcher is None
    assert (slow_lines.closed, closed) == (1, ["released"])
    received = slow_client.rest()  # what the kernel held, cut mid-chunk, then closed
    assert received.startswith(b"HEAD\r\n\r\n") and not received.endswith(END_CHUNK)
    assert other.state != ENDED


def test_a_client_gone_frees_its_stream_once(writer: Writer) -> None:
    stream, lines, client, closed = park(writer)
    client.read(chunk(b"open\n"))
    client.sock.close()
    say(stream, lines, "a\n")
    say(stream, lines, "b\n")
    until(lambda: stream.state == ENDED)
    stream.close()  # another way out asks again: nothing runs twice
    assert (lines.closed, closed) == (1, ["released"]) and stream not in writer.streams


def test_the_workers_exit_ends_every_stream_with_its_last_chunk(writer: Writer) -> None:
    parked = [park(writer) for _ in range(3)]
    blocked, blocked_lines, blocked_client, blocked_closed = park(writer, sndbuf=4096)
    big = "z" * 400_000 + "\n"
    say(blocked, blocked_lines, big)
    until(lambda: blocked.watcher is not None)
    ending = gevent.spawn(writer.end_all, READ_BOUND_S)
    for _, _, client, _ in parked:
        assert client.rest() == b"HEAD\r\n\r\n" + chunk(b"open\n") + END_CHUNK
    assert blocked_client.rest().endswith(chunk(big.encode()) + END_CHUNK)  # once it reads
    assert ending.get(timeout=READ_BOUND_S) == 4
    for stream, lines, _, closed in [*parked, (blocked, blocked_lines, None, blocked_closed)]:
        assert stream.state == ENDED and lines.closed == 1 and closed == ["released"]
    assert not writer.streams


def test_a_stream_parked_while_the_worker_exits_ends_after_its_opening(writer: Writer) -> None:
    writer.end_all(0)
    _, lines, client, closed = park(writer)
    assert client.rest() == b"HEAD\r\n\r\n" + chunk(b"open\n") + END_CHUNK
    assert (lines.closed, closed) == (1, ["released"])


def test_the_head_is_the_answers_with_the_connection_closed() -> None:
    headers = [
        ("Content-Type", "application/x-ndjson"),
        ("X-Request-Id", "abc"),
        ("Connection", "keep-alive"),
        ("Content-Length", "9"),
    ]
    head = response_head("HTTP/1.1", "200 OK", headers, chunked=True).decode()
    lines = head.split("\r\n")
    assert lines[0] == "HTTP/1.1 200 OK" and head.endswith("\r\n\r\n")
    assert "Content-Type: application/x-ndjson" in lines and "X-Request-Id: abc" in lines
    assert "Transfer-Encoding: chunked" in lines and "Connection: close" in lines
    assert "Connection: keep-alive" not in lines and "Content-Length: 9" not in lines
    plain = response_head("HTTP/1.0", "200 OK", headers, chunked=False).decode()
    assert plain.startswith("HTTP/1.0 200 OK") and "Transfer-Encoding" not in plain


class TlsSocket:
    """What tells a TLS connection apart (gevent's and the standard library's)."""

    def do_handshake(self) -> None: ...


def test_only_plain_http_1_connections_are_parked() -> None:
    plain, other = socket.socketpair()
    with plain, other:
        assert parkable(plain, "HTTP/1.1") and parkable(plain, "HTTP/1.0")
        assert not parkable(plain, "HTTP/2") and not parkable(None, "HTTP/1.1")
    assert not parkable(TlsSocket(), "HTTP/1.1")
