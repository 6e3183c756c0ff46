"""A table's preset messages as every stream of a process shares them.

A :class:`TalkFeed` watches the game's talk stream (:func:`service.store.keys.talk`)
on the same readers as the games' events, so a message costs no connection
and no read of its own per stream. Each open stream of the game holds a
:class:`TalkListener`: the messages said after the stream opened, queued
(at most :data:`KEPT_PER_LISTENER`; older ones are dropped, as the talk
stream itself keeps only the latest) until its stream writes them.
"""

from __future__ import annotations

from collections import deque

from service.store.talk import Said, said

from .feed import Signal
from .reader import Rows

KEPT_PER_LISTENER = 16
"""Messages a stream may have queued and not yet written (the oldest go first)."""


def _after(entry_id: str, cursor: str) -> bool:
    """Whether stream id ``entry_id`` comes after ``cursor`` (ids are ``ms-seq``)."""
    a_ms, _, a_seq = entry_id.partition("-")
    b_ms, _, b_seq = cursor.partition("-")
    return (int(a_ms), int(a_seq or 0)) > (int(b_ms), int(b_seq or 0))


class TalkListener:
    """One stream's messages not yet written, after the id it opened at."""

    __slots__ = ("after", "feed", "heard", "signal")

    def __init__(self, after: str, signal: Signal) -> None:
        self.after = after
        self.signal = signal
        self.heard: deque[Said] | None = None
        """The messages not yet written (made with the first one heard)."""
        self.feed: TalkFeed | None = None

    def hear(self, message: Said) -> None:
        if _after(message.id, self.after):
            self.after = message.id
            if self.heard is None:
                self.heard = deque(maxlen=KEPT_PER_LISTENER)
            self.heard.append(message)
            self.signal.set()

    def take(self) -> list[Said]:
        """The messages queued so far, oldest first (safe beside a reader's push)."""
        out: list[Said] = []
        heard = self.heard
        while heard:
            out.append(heard.popleft())
        return out


class TalkFeed:
    """A watched talk stream (a :class:`~.reader.Watch`); its methods run under
    the hub's lock."""

    __slots__ = ("_cursor", "key", "listeners")

    def __init__(self, key: str, cursor: str) -> None:
        self.key = key
        self._cursor = cursor
        self.listeners: set[TalkListener] = set()

    @property
    def cursor(self) -> str:
        return self._cursor

    def join(self, listener: TalkListener) -> TalkListener:
        listener.feed = self
        self.listeners.add(listener)
        return listener

    def on_rows(self, rows: Rows) -> None:
        for message in said(rows):
            if _after(message.id, self._cursor):
                self._cursor = message.id
            for listener in self.listeners:
                listener.hear(message)

    @property
    def idle(self) -> bool:
        return not self.listeners

    def close(self, reason: str) -> None:
        self.listeners.clear()
