"""One game as every stream of a process shares it.

A :class:`GameFeed` holds the game's state, folded once from the events its
reader brings, and the :class:`Subscriber` of each open stream. Each read
becomes one :class:`Batch` handed to every subscriber: the same object,
whose lines are rendered once per viewer (a seat, or ``None`` for the
spectators) on first demand and then shared by every stream of that viewer.

A subscriber's queue is bounded (``max_pending`` batches): a client too slow
to take its lines is dropped (its stream ends, it resumes with ``after``)
rather than holding memory or anyone else.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Protocol

from service.engines import table
from service.store import StoredEvent

from .reader import Rows


class Renderer(Protocol):
    """How a stream writes its lines (the API's NDJSON, :mod:`service.api.events`)."""

    def event_line(self, state: table.Table, stored: StoredEvent, viewer: int | None) -> str:
        """The ``event`` line of ``stored`` for ``viewer``, redacted against ``state``
        (the state right after it)."""
        ...

    def view_line(self, state: table.Table, viewer: int | None) -> str:
        """The ``view`` line of ``viewer`` at ``state``."""
        ...


class Signal(Protocol):
    """What wakes a stream when its subscriptions have something new: a
    ``threading.Event`` its greenlet or thread waits on, or a parked stream
    (:class:`service.parking.stream.ParkedStream`, which the writer then serves)."""

    def set(self) -> None: ...


class Batch:
    """The events one read brought for one game, with the state right after each."""

    __slots__ = ("_events", "_renderer", "_states", "_text", "_views")

    def __init__(
        self,
        events: list[StoredEvent],
        states: list[table.Table],
        renderer: Renderer,
    ) -> None:
        self._events = events
        self._states = states
        self._renderer = renderer
        self._text: dict[int | None, str] = {}
        self._views: dict[int | None, str] = {}

    @property
    def first(self) -> int:
        return self._events[0].version

    @property
    def version(self) -> int:
        return self._events[-1].version

    @property
    def state(self) -> table.Table:
        return self._states[-1]

    def lines(self, viewer: int | None, after: int) -> str:
        """The batch's ``event`` lines of the versions after ``after``, for ``viewer``;
        the whole batch is rendered once per viewer and kept."""
        if after < self.first:
            text = self._text.get(viewer)
            if text is None:
                text = self._text[viewer] = self._render(viewer, after)
            return text
        return self._render(viewer, after)

    def _render(self, viewer: int | None, after: int) -> str:
        render = self._renderer.event_line
        return "".join(
            render(state, stored, viewer)
            for stored, state in zip(self._events, self._states, strict=True)
            if stored.version > after
        )

    def view_line(self, viewer: int | None) -> str:
        """``viewer``'s view after the batch, rendered once per viewer."""
        line = self._views.get(viewer)
        if line is None:
            line = self._views[viewer] = self._renderer.view_line(self.state, viewer)
        return line


class Subscriber:
    """One open stream's place on a game: the batches not yet taken, and the
    signal its stream waits on (shared by the games of one player's stream)."""

    __slots__ = ("closed", "feed", "pending", "signal", "version", "viewer")

    def __init__(self, viewer: int | None, signal: Signal) -> None:
        self.viewer = viewer
        self.signal = signal
        self.version = 0
        """The last version this stream was given (or will be, in a pending batch)."""
        self.pending: deque[Batch] | None = None
        """The batches not yet taken (made with the first: an idle stream holds none)."""
        self.closed: str | None = None
        """Why the hub let go of this stream (``None``: it has not)."""
        self.feed: GameFeed | None = None

    def push(self, batch: Batch, max_pending: int) -> bool:
        """Queue ``batch``; false (and closed) when the stream is too far behind."""
        pending = self.pending
        if pending is None:
            pending = self.pending = deque()
        elif len(pending) >= max_pending:
            self.close("slow")
            return False
        pending.append(batch)
        self.signal.set()
        return True

    def close(self, reason: str) -> None:
        if self.closed is None:
            self.closed = reason
        self.signal.set()

    def take(self) -> list[Batch]:
        """The batches queued so far, oldest first (safe beside a reader's push)."""
        out: list[Batch] = []
        pending = self.pending
        while pending:
            out.append(pending.popleft())
        return out


class GameFeed:
    """A watched game: its state, folded once, and its subscribers.

    Its methods run under the hub's lock (:class:`service.hub.Hub`)."""

    __slots__ = ("_deliver", "checked_ms", "game_id", "key", "renderer", "state", "subscribers")

    def __init__(
        self,
        key: str,
        state: table.Table,
        renderer: Renderer,
        deliver: Callable[[GameFeed, Rows], None],
    ) -> None:
        self.key = key
        self._deliver = deliver
        self.game_id = state.game_id
        self.state = state
        self.renderer = renderer
        self.subscribers: set[Subscriber] = set()
        self.checked_ms = 0
        """When a stream last asked whether the game still exists (see :meth:`Hub.gone`)."""

    @property
    def cursor(self) -> str:
        """The stream id the next read starts after (entry ``<version>-<at_ms>``)."""
        return f"{self.state.version}-{2**64 - 1}"

    def join(self, sub: Subscriber, loaded: table.Table) -> table.Table:
        """Add ``sub``, which loaded ``loaded``: its stream starts from the newer of
        that and the feed's own state, and gets every batch after it."""
        start = loaded if loaded.version > self.state.version else self.state
        sub.version = start.version
        sub.feed = self
        self.subscribers.add(sub)
        return start

    def deliver(
        self, events: list[StoredEvent], max_pending: int, on_entry: Callable[[int, int], None]
    ) -> list[Subscriber]:
        """Fold ``events`` (those after the feed's version) and queue their batch on
        every subscriber; the subscribers dropped as too slow."""
        fresh = [s for s in events if s.version > self.state.version]
        if not fresh or fresh[0].version != self.state.version + 1:
            return []  # nothing new, or not the next event: the next read starts at the cursor
        states = []
        state = self.state
        for stored in fresh:
            state = table.apply(state, stored.event)
            states.append(state)
            on_entry(stored.version, stored.at_ms)
        self.state = state
        batch = Batch(fresh, states, self.renderer)
        dropped = []
        for sub in self.subscribers:
            if batch.version <= sub.version:
                continue  # it loaded a newer state than the feed had
            if sub.push(batch, max_pending):
                sub.version = batch.version
            else:
                dropped.append(sub)
        for sub in dropped:
            self.subscribers.discard(sub)
        return dropped

    def on_rows(self, rows: Rows) -> None:
        """New entries of the game: decoded and folded by the hub (:meth:`Hub.deliver`)."""
        self._deliver(self, rows)

    @property
    def idle(self) -> bool:
        return not self.subscribers

    def close(self, reason: str) -> None:
        for sub in self.subscribers:
            sub.close(reason)
        self.subscribers.clear()

    @property
    def finished(self) -> bool:
        return self.state.over and self.state.server_seed is not None
