"""A live stream's lines, followed through the process's stream hub.

Every live stream of a serving process subscribes to the game's feed on the
process's :class:`~service.hub.Hub` (one, made on first use): the hub's few
readers bring each game's events once and every stream of the game takes
the same batch, whose lines are rendered once per seat. A stream's own
cost is a subscriber (a queue of shared batches and a signal) and what
writes its lines.

:func:`opening` is what a stream starts with (the viewer's view, then the
events after ``after``); :func:`open_game` opens a per-game stream: its
opening and its :class:`GameLines` (:class:`~service.parking.Lines`: what is
new, and a keep-alive when nothing is), one step of the stream each time it
is asked. :class:`Following` is one game of a stream (the player's stream,
:mod:`.playerstream`, follows many, with lines of its own).

:func:`live_body` makes a stream's body from them. Where the server offers
to park streams (the stream server's worker, :mod:`service.parking`) it is
a parked stream, which the process's writer writes with no greenlet of its
own; anywhere else it is :class:`Opened`, a generator (:func:`follow`) that
a greenlet or thread waits in. Either way its opening is made (and its
Redis reads done) while the request is still answered, so that a failure
there is the request's own error answer (a 503 when Redis is away) and not
a server's 500 once the body has begun.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from collections.abc import Callable, Generator
from dataclasses import dataclass
from itertools import chain
from typing import Any, Final

from flask import Response, current_app, request

from service.bodies import event_json
from service.engines import table
from service.games import GameService
from service.hub import Batch, Collector, Hub, Signal, Subscriber
from service.hub.talk import TalkListener
from service.parking.stream import PARKING, Lines, Offer, ParkedStream
from service.store import EventStore, StoredEvent
from service.store.talk import Said

from .progress import full_view

_made = threading.Lock()
NDJSON: Final = "application/x-ndjson"
SEND_BUFFER: Final = 32 * 1024
"""The kernel's send buffer of a stream's socket (Linux doubles it): lines are
small and few a second, and a client that stops reading holds no more."""


HELD_TEXT: Final = 512
"""A text longer than this (characters) is followed by an empty one (:class:`Opened`)."""


def line(kind: str, version: int, **payload: Any) -> str:
    return json.dumps({"kind": kind, "version": version, **payload}, separators=(",", ":")) + "\n"


def messages(said: list[Said], version: int) -> str:
    """The ``message`` lines of table talk said (``said``: its messages)."""
    return "".join(line("message", version, message=m.json()) for m in said)


def finished(state: table.Table) -> bool:
    return state.over and state.server_seed is not None


class NdjsonLines:
    """The hub's :class:`~service.hub.Renderer`: the stream's NDJSON lines."""

    def __init__(self, store: EventStore) -> None:
        self.store = store

    def event_line(self, state: table.Table, stored: StoredEvent, viewer: int | None) -> str:
        shown = table.redact(state, stored.event, viewer)
        event = event_json(stored.version, shown, stored.at_ms)
        return line("event", stored.version, game=state.kind, event=event)

    def view_line(self, state: table.Table, viewer: int | None) -> str:
        return line("view", state.version, view=full_view(state, viewer, self.store))


def process_hub(svc: GameService) -> Hub:
    """The application's hub (made on first use, over ``svc``'s store)."""
    extensions = current_app.extensions
    hub: Hub | None = extensions.get("cardroom_hub")
    if hub is None:
        with _made:
            hub = extensions.get("cardroom_hub")
            if hub is None:
                settings = svc.runtime.settings
                every = settings.stream_gc_freeze_every
                hub = Hub(
                    svc.store,
                    NdjsonLines(svc.store),
                    max_pending=settings.stream_max_pending,
                    collector=Collector(every) if every else None,
                )
                extensions["cardroom_hub"] = hub
    return hub


def limit_writes(environ: dict[str, Any], timeout_s: float) -> None:
    """Bound how long a write to this request's client may block (gunicorn's
    socket; ``stream_write_timeout_s``), and how much the kernel buffers for it
    (:data:`SEND_BUFFER`): a client that stopped reading, or a half-open
    connection, then ends its stream instead of holding it and its memory."""
    sock = environ.get("gunicorn.socket")
    if sock is None or not hasattr(sock, "settimeout"):
        return
    sock.settimeout(timeout_s)
    with contextlib.suppress(OSError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)


def opening(svc: GameService, state: table.Table, viewer: int | None, after: int | None) -> str:
    """A stream's first lines: the viewer's view, then the events after ``after``
    up to it (redacted against it, as a page of events is)."""
    view = line("view", state.version, view=full_view(state, viewer, svc.store))
    return view + catch_up(svc, state, viewer, after)


def catch_up(svc: GameService, state: table.Table, viewer: int | None, after: int | None) -> str:
    """The ``event`` lines after ``after`` up to ``state`` (redacted against it)."""
    if after is None or after >= state.version:
        return ""
    render = NdjsonLines(svc.store).event_line
    stored = svc.store.read(state.game_id, after, state.version - after)
    return "".join(render(state, s, viewer) for s in stored)


def sent(text: str) -> Generator[bytes, None, None]:
    """``text`` as a stream writes it (``yield from``): encoded, and when long
    followed by an empty text. The server holds the last text it wrote until
    it takes the next, which for an idle stream is a keep-alive many seconds
    later; the empty one lets it drop the long one at once."""
    data = text.encode()
    del text
    yield data
    if len(data) > HELD_TEXT:
        del data
        yield b""


class Opened(chain[bytes]):
    """A stream's body: its generator, primed (run to its first ``yield``, an
    empty text, once its opening is made), so that what the opening needs (Redis
    reads) fails the request and not the response once begun, where a WSGI
    server answers a bare 500. Closing it closes the generator, then runs what
    was asked to run then (:meth:`on_close`).

    It is the server's body itself (:class:`LiveResponse`), and a ``chain``: the
    server's ``next`` goes straight to the generator, with no frame of werkzeug
    or of this class between them (each would be kept, in the stream's saved
    stack, while it waits)."""

    __slots__ = ("_closing", "_lines")
    _lines: Generator[bytes, None, None]
    _closing: list[Callable[[], Any]]

    def __new__(cls, lines: Generator[bytes, None, None]) -> Opened:
        if next(lines) != b"":
            lines.close()
            raise ValueError("a stream's generator first yields an empty text, once it is opened")
        self = super().__new__(cls, lines)
        self._lines = lines
        self._closing = []
        return self

    def on_close(self, func: Callable[[], Any]) -> None:
        """Run ``func`` when the stream closes (once, after the generator)."""
        self._closing.append(func)

    def close(self) -> None:
        closing, self._closing = self._closing, []
        try:
            self._lines.close()
        finally:
            for func in closing:
                func()


class LiveResponse(Response):
    """A stream's response: its body (:class:`Opened`, or a parked stream) passed
    to the server as it is, and what is to run when the response closes
    (``call_on_close``, as the after-request hooks ask) run when the body closes
    (for a parked stream, when it ends)."""

    def __init__(self, body: Opened | ParkedStream) -> None:
        super().__init__(
            body,
            mimetype=NDJSON,
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
            direct_passthrough=True,
        )
        self.body = body

    def call_on_close(self, func: Callable[[], Any]) -> Callable[[], Any]:
        self.body.on_close(func)
        return func


@dataclass(slots=True)
class Following:
    """One game of a stream: its subscriber and the last version written."""

    sub: Subscriber
    viewer: int | None
    shown: int
    ended: bool = False

    def text(self, batches: list[Batch], views: bool) -> str:
        """The lines of ``batches`` after :attr:`shown` (and, with ``views``, the
        viewer's view after each); ``end`` once the game has ended."""
        parts = []
        for batch in batches:
            if batch.version <= self.shown:
                continue
            parts.append(batch.lines(self.viewer, self.shown))
            self.shown = batch.version
            if views:
                parts.append(batch.view_line(self.viewer))
            if finished(batch.state):
                parts.append(line("end", self.shown))
                self.ended = True
                break
        return "".join(parts)


class GameLines:
    """A per-game stream's lines after its opening (:class:`~service.parking.Lines`):
    its game's batches and the table's messages, a keep-alive when quiet."""

    __slots__ = ("game", "hub", "keepalive_ms", "talk", "views")

    def __init__(
        self, hub: Hub, game: Following, talk: TalkListener, keepalive_ms: int, views: bool
    ) -> None:
        self.hub = hub
        self.game = game
        self.talk = talk
        self.keepalive_ms = keepalive_ms
        self.views = views

    def take(self) -> tuple[str, bool]:
        game = self.game
        closed = game.sub.closed is not None  # before taking: what came before it is written
        batches, said = game.sub.take(), self.talk.take()
        text = messages(said, game.shown) if said else ""
        if batches:
            text += game.text(batches, self.views)
        # dropped as too slow, or Redis lost: the client resumes
        return text, game.ended or closed

    def keepalive(self) -> str | None:
        if self.hub.gone(self.game.sub, self.keepalive_ms):
            return None  # the table expired (service.retention): reconnecting gets the 410
        return line("keepalive", self.game.shown)

    def close(self) -> None:
        self.hub.unsubscribe(self.game.sub)
        self.hub.unlisten(self.talk)


def open_game(
    svc: GameService,
    hub: Hub,
    state: table.Table,
    viewer: int | None,
    after: int | None,
    keepalive_ms: int,
    views: bool,
    signal: Signal,
) -> tuple[str, Lines | None]:
    """A per-game stream (see :mod:`service.api.events`) opened: its opening and,
    unless the game has ended, its lines from then on, woken on ``signal``;
    ``hub`` is :func:`process_hub` (read while the request's application is current)."""
    if finished(state):
        return opening(svc, state, viewer, after) + line("end", state.version), None
    heard = svc.store.talk.last_id(state.game_id)  # messages from now on (GET …/messages: before)
    sub, start = hub.subscribe(state, viewer, signal)
    lines: GameLines | None = None
    try:
        talk = hub.listen(state.game_id, heard, signal)
        lines = GameLines(hub, Following(sub, viewer, start.version), talk, keepalive_ms, views)
        first = opening(svc, start, viewer, after)
    except BaseException:
        if lines is None:
            hub.unsubscribe(sub)
        else:
            lines.close()
        raise
    if finished(start):
        lines.close()
        return first + line("end", start.version), None
    return first, lines


def follow(
    first: str, lines: Lines | None, signal: threading.Event, keepalive_ms: int
) -> Generator[bytes, None, None]:
    """A stream as a generator (a greenlet or thread waits in it, for servers
    that do not park streams): the opened mark, ``first``, then ``lines`` as
    they come, woken on ``signal`` (that of their subscriptions)."""
    keepalive_s = keepalive_ms / 1000
    try:
        yield b""  # opened
        yield from sent(first)
        del first
        if lines is None:
            return
        while True:
            signal.clear()
            text, over = lines.take()
            if text:
                yield from sent(text)
            if over:
                return
            if not text and not signal.wait(keepalive_s):
                kept = lines.keepalive()
                if kept is None:
                    return
                yield kept.encode()
    finally:
        if lines is not None:
            lines.close()


def live_body(
    keepalive_ms: int, write_timeout_s: float, start: Callable[[Signal], tuple[str, Lines | None]]
) -> Opened | ParkedStream:
    """A live stream's body, opened by ``start`` (given the signal its
    subscriptions are to set): parked when the server offers it (the stream
    server's worker, :mod:`service.parking`), else a generator (:func:`follow`)."""
    offer: Offer | None = request.environ.get(PARKING)
    if offer is None:
        signal = threading.Event()
        first, lines = start(signal)
        return Opened(follow(first, lines, signal, keepalive_ms))
    parked = offer.stream(keepalive_ms / 1000, write_timeout_s)
    first, lines = start(parked)
    parked.opened(first, lines)
    return parked
