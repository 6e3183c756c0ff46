"""A parked stream: a live stream's connection and lines, with no greenlet of its own.

The application answers a live stream with a :class:`ParkedStream` when the
server offers parking (:data:`PARKING` in the WSGI environ, the stream
server's worker, :mod:`.worker`). The stream has been opened by then (its
subscriptions made, its opening text rendered); the server writes its
answer's head and opening and hands it to the process's writer
(:mod:`.writer`), which writes every later line from the :class:`Lines` the
stream follows. What it keeps while idle is this object, a bare socket and
its lines' subscriber: no request, environ, response or frame.

It is also the signal its subscriptions set (:meth:`ParkedStream.set`): a
new batch puts the stream on the writer's ready queue.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from email.utils import formatdate
from typing import Any, Final, Protocol

PARKING: Final = "cardroom.parking"
"""The WSGI environ key of the server's offer to park streams (an :class:`Offer`)."""

END_CHUNK: Final = b"0\r\n\r\n"
"""The last chunk of a chunked answer: the stream ended, the client resumes with ``after``."""

UNPARKED, PARKED, ENDED = 0, 1, 2


class Lines(Protocol):
    """What a live stream writes after its opening, asked by whoever writes it:
    a greenlet's or thread's generator (:func:`service.api.live.follow`) or the
    writer of parked streams."""

    def take(self) -> tuple[str, bool]:
        """The lines new since last asked (``""``: none) and whether the stream
        ends after them (its game ended, it was dropped as too slow, Redis was lost)."""
        ...

    def keepalive(self) -> str | None:
        """The line of a stream quiet for a keep-alive interval; ``None``: it
        ends instead (its table expired, :mod:`service.retention`)."""
        ...

    def close(self) -> None:
        """Let go of what it follows (called once, when the stream ends)."""
        ...


class Offer(Protocol):
    """The server's offer to park streams (:data:`PARKING`)."""

    def stream(self, keepalive_s: float, write_timeout_s: float) -> ParkedStream:
        """A stream to open, then answer with (its lines' signal)."""
        ...


class Ready(Protocol):
    """Whom a parked stream tells that it has something to write (the writer)."""

    def notify(self, stream: ParkedStream) -> None: ...


def chunk(data: bytes) -> bytes:
    """``data`` as one chunk of a chunked answer."""
    return b"%x\r\n%s\r\n" % (len(data), data)


def response_head(
    protocol: str, status: str, headers: list[tuple[str, str]], chunked: bool
) -> bytes:
    """The answer's head as the server would write it, closing the connection
    after the stream (chunked for HTTP/1.1, close-delimited for HTTP/1.0)."""
    version = "HTTP/1.0" if protocol == "HTTP/1.0" else "HTTP/1.1"
    lines = [f"{version} {status}", f"Date: {formatdate(time.time(), usegmt=True)}"]
    lines += [f"{name}: {value}" for name, value in headers if not _hop_by_hop(name)]
    if chunked:
        lines.append("Transfer-Encoding: chunked")
    lines.append("Connection: close")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def _hop_by_hop(name: str) -> bool:
    return name.lower() in ("connection", "transfer-encoding", "keep-alive", "content-length")


class ParkedStream:
    """One parked stream (see the module's documentation); the writer owns its
    state once parked (:mod:`.writer`)."""

    __slots__ = (
        "chunked",
        "closing",
        "due",
        "ending",
        "entry",
        "lines",
        "opening",
        "out",
        "queued",
        "ready",
        "sock",
        "state",
        "watcher",
    )

    def __init__(self, ready: Ready) -> None:
        self.ready = ready
        self.state = UNPARKED
        self.lines: Lines | None = None
        self.opening: str | None = None
        """The opening's text, until the writer takes it (with the answer's head)."""
        self.closing: list[Callable[[], Any]] | None = None
        self.sock: Any = None
        """The connection (a non-blocking socket of the stream's own fd) once parked."""
        self.chunked = True
        self.out: bytes | None = None
        """What is still to be written (a write the client did not take whole)."""
        self.ending = False
        """Its last bytes are written or being written; then it ends."""
        self.queued = False
        self.due = 0.0
        """When the writer next looks at it unasked: its keep-alive, or the end of
        a blocked write's patience."""
        self.entry = 0
        """Its live entry in the writer's schedule (0: none)."""
        self.watcher: Any = None
        """A writability watcher, made only while a write waits."""

    def opened(self, opening: str, lines: Lines | None) -> None:
        """What the stream starts with, and what it follows (``None``: it ends after
        its opening)."""
        self.opening = opening
        self.lines = lines

    def set(self) -> None:
        """The signal its subscriptions set: something new to write."""
        if self.state == PARKED and self.watcher is None:
            self.ready.notify(self)

    def on_close(self, func: Callable[[], Any]) -> None:
        """Run ``func`` when the stream ends (once, after its lines let go)."""
        if self.closing is None:
            self.closing = []
        self.closing.append(func)

    def close(self) -> None:
        """Let go of its lines, then run what was asked (once, whoever asks first)."""
        lines, self.lines = self.lines, None
        closing, self.closing = self.closing, None
        self.opening = None
        try:
            if lines is not None:
                lines.close()
        finally:
            for func in closing or ():
                func()

    def __iter__(self) -> Iterator[bytes]:
        """A server that offered parking and then did not park it (a bug) writes
        its opening, and the stream ends there (its client resumes with ``after``)."""
        if self.opening:
            yield self.opening.encode()
