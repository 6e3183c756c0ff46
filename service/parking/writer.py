"""The writer: one greenlet that writes every parked stream of a process.

A parked stream (:mod:`.stream`) is put on the writer's ready queue by its
subscriptions' signal; the writer takes its new lines (the same
:class:`~.stream.Lines` a greenlet's generator would ask) and sends them as
one chunk, without blocking. A write the client does not take whole keeps
its remainder and waits for the socket to be writable (a watcher made only
then); the stream takes nothing more meanwhile, so its batches queue in the
hub, which drops it once ``stream_max_pending`` are waiting, and a write
blocked past ``stream_write_timeout_s`` drops it too. A client gone (reset,
broken pipe) ends its stream at its next write.

Keep-alives and the patience of blocked writes come from one schedule (a
heap, one live entry per stream, :meth:`Writer._schedule`): a stream due for
a keep-alive (quiet for ``stream_keepalive_s``) gets one line, found without
a scan of every stream.

When the worker exits, :meth:`Writer.end_all` ends every stream with its
terminating chunk (the client resumes with ``after``), waiting at most the
time given for the clients to take it.
"""

from __future__ import annotations

import contextlib
import heapq
import logging
import time
from collections import deque
from collections.abc import Callable
from typing import Any, Final

import gevent
from gevent.event import Event

from .stream import END_CHUNK, ENDED, PARKED, ParkedStream, chunk

log = logging.getLogger("cardroom.parking")

YIELD_EVERY: Final = 256
"""Streams served before the writer lets the readers and requests run."""
WRITABLE: Final = 2
"""The event loop's write readiness (libev's and libuv's ``EV_WRITE``)."""


class Writer:
    """Every parked stream of a process (see the module's documentation)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.streams: set[ParkedStream] = set()
        self.ready: deque[ParkedStream] = deque()
        self.schedule: list[tuple[float, int, ParkedStream]] = []
        self.keepalive_s = 15.0
        self.write_timeout_s = 30.0
        self.stopping = False
        self._entries = 0
        self._wake = Event()
        self._emptied = Event()
        self._greenlet: gevent.Greenlet | None = None

    # -- the offer (service.parking.stream.Offer) -------------------------------------
    def stream(self, keepalive_s: float, write_timeout_s: float) -> ParkedStream:
        """A stream to open, then park (the settings are the process's, the same
        for every stream)."""
        self.keepalive_s = keepalive_s
        self.write_timeout_s = write_timeout_s
        return ParkedStream(self)

    def park(self, stream: ParkedStream, sock: Any, head: bytes, chunked: bool) -> None:
        """Take ``stream`` over on ``sock`` (non-blocking, the stream's own):
        its answer's ``head`` and opening are its first write."""
        opening = (stream.opening or "").encode()
        stream.opening = None
        stream.sock = sock
        stream.chunked = chunked
        stream.state = PARKED
        stream.out = head + (self._frame(stream, opening) if opening else b"")
        self.streams.add(stream)
        self._emptied.clear()
        if stream.lines is None or self.stopping:
            stream.out += self._last(stream)
            stream.ending = True
        self._schedule(stream, self.clock() + self.keepalive_s)
        if self._greenlet is None:
            self._greenlet = gevent.spawn(self.run)
        self.notify(stream)

    def notify(self, stream: ParkedStream) -> None:
        """``stream`` has something to write (its signal, or its socket writable)."""
        if not stream.queued and stream.state == PARKED:
            stream.queued = True
            self.ready.append(stream)
            self._wake.set()

    def wake(self) -> None:
        """Look at the schedule now (its clock moved on)."""
        self._wake.set()

    # -- the greenlet ---------------------------------------------------------------
    def run(self) -> None:
        while True:
            self._wake.wait(self._until_due())
            self._wake.clear()
            try:
                self._serve_ready()
                self._serve_due()
            except Exception:  # a bug: logged, and the other streams go on
                log.exception("the parked streams' writer failed a round")
            if not self.streams:
                self._emptied.set()

    def _until_due(self) -> float | None:
        if not self.schedule:
            return None
        return max(0.0, self.schedule[0][0] - self.clock())

    def _serve_ready(self) -> None:
        served = 0
        while self.ready:
            stream = self.ready.popleft()
            stream.queued = False
            try:
                self._serve(stream)
            except Exception:
                log.exception("a parked stream failed; it ends")
                self._end(stream)
            served += 1
            if served % YIELD_EVERY == 0:
                gevent.sleep(0)

    def _serve(self, stream: ParkedStream) -> None:
        if stream.state != PARKED or stream.watcher is not None:
            return
        if stream.out is not None and not self._flush(stream):
            return
        if stream.ending:
            self._finish(stream)
            return
        assert stream.lines is not None
        text, over = stream.lines.take()
        self._write(stream, text, over)

    def _serve_due(self) -> None:
        now = self.clock()
        schedule = self.schedule
        while schedule and schedule[0][0] <= now:
            _, entry, stream = heapq.heappop(schedule)
            if entry != stream.entry or stream.state != PARKED:
                continue  # a stale entry: the stream ended, or was scheduled earlier since
            stream.entry = 0
            if stream.due > now:
                self._schedule(stream, stream.due)  # it wrote since: its keep-alive is later
            elif stream.out is not None:
                self._finish(stream)  # its client took nothing for the write timeout
            else:
                self._keepalive(stream)

    def _keepalive(self, stream: ParkedStream) -> None:
        assert stream.lines is not None
        try:
            text = stream.lines.keepalive()
        except Exception:
            log.exception("a parked stream's keep-alive failed; it ends")
            text = None
        if text is None:
            self._write(stream, "", True)
        else:
            self._write(stream, text, False)

    # -- writing --------------------------------------------------------------------
    def _write(self, stream: ParkedStream, text: str, over: bool) -> None:
        if stream.state != PARKED:
            return  # ended while its lines were asked (the worker's exit)
        data = self._frame(stream, text.encode()) if text else b""
        if over:
            data += self._last(stream)
            stream.ending = True
        if not data:
            return
        stream.out = data
        if self._flush(stream) and stream.ending:
            self._finish(stream)

    def _frame(self, stream: ParkedStream, data: bytes) -> bytes:
        return chunk(data) if stream.chunked else data

    def _last(self, stream: ParkedStream) -> bytes:
        return END_CHUNK if stream.chunked else b""

    def _flush(self, stream: ParkedStream) -> bool:
        """Send what ``stream`` has to write; whether all of it went."""
        out = stream.out
        assert out is not None
        try:
            sent = stream.sock.send(out) if out else 0
        except BlockingIOError:
            sent = 0
        except OSError:
            self._finish(stream)  # the client is gone
            return False
        now = self.clock()
        if sent == len(out):
            stream.out = None
            self._schedule(stream, now + self.keepalive_s)
            return True
        stream.out = out[sent:]
        self._schedule(stream, now + self.write_timeout_s)
        watcher = gevent.get_hub().loop.io(stream.sock.fileno(), WRITABLE)
        stream.watcher = watcher
        watcher.start(self._writable, stream)
        return False

    def _writable(self, stream: ParkedStream) -> None:
        self._unwatch(stream)
        self.notify(stream)

    def _unwatch(self, stream: ParkedStream) -> None:
        watcher, stream.watcher = stream.watcher, None
        if watcher is not None:
            watcher.stop()
            watcher.close()

    def _schedule(self, stream: ParkedStream, at: float) -> None:
        """Look at ``stream`` again at ``at``: a later time is taken up when its
        entry comes due; an earlier one (or none) is a new entry."""
        if stream.entry == 0 or at < stream.due:
            self._entries += 1
            stream.entry = self._entries
            heapq.heappush(self.schedule, (at, self._entries, stream))
            self._wake.set()
        stream.due = at

    # -- ending ---------------------------------------------------------------------
    def _end(self, stream: ParkedStream) -> None:
        """End ``stream`` with its terminating chunk if its connection takes it now."""
        if stream.state != PARKED:
            return
        if stream.out is None and stream.watcher is None:
            stream.out = self._last(stream)
            stream.ending = True
            if self._flush(stream):
                self._finish(stream)
            return
        self._finish(stream)

    def _finish(self, stream: ParkedStream) -> None:
        """Close ``stream``'s connection and let go of everything it held (once)."""
        if stream.state == ENDED:
            return
        stream.state = ENDED
        self.streams.discard(stream)
        self._unwatch(stream)
        stream.out = None
        sock, stream.sock = stream.sock, None
        with contextlib.suppress(OSError):
            sock.close()
        try:
            stream.close()
        except Exception:
            log.exception("a parked stream's close failed")

    def end_all(self, within_s: float) -> int:
        """End every stream with its terminating chunk (the worker exits), waiting
        at most ``within_s`` for the clients to take it; those still writing then
        are closed. The streams that were open."""
        self.stopping = True
        streams = list(self.streams)
        for stream in streams:
            if stream.state != PARKED or stream.ending:
                continue
            stream.ending = True
            if stream.out is None:
                self._write(stream, "", True)
            else:
                stream.out += self._last(stream)
        if self.streams:
            self._emptied.wait(within_s)
        for stream in list(self.streams):
            self._finish(stream)
        return len(streams)
