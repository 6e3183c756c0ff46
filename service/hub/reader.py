"""The blocking reads of the hub: one ``XREAD`` over many watched keys.

A :class:`Reader` runs in a daemon thread (a greenlet once gevent has
patched the standard library) for as long as it has keys to read. Each
round it sends one ``XREAD BLOCK`` over all of them, each after its own
cursor, plus its wake-up key: a new key is added by appending to that wake
key (``XADD … MAXLEN 1``, expiring), which ends the blocked read at once so
the next round includes it. A key that is no longer watched is left out of
the next round. On a Redis error the reader lets its watches go
(:meth:`Hub.lost`): their streams end and their clients resume with
``after``, as after any lost connection.

Each reader has a connection of its own (``store.tails``), apart from
the pool the process's requests share. On a Redis Cluster one ``XREAD``
may not name keys of several slots, so each key gets a reader of its own
and no wake key (see docs/operations.md).
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any, Final, Protocol

from service.store.tails import StreamTails, TailLost, TailReader

Rows = list[tuple[bytes, dict[bytes, bytes]]]
"""A stream's entries as a read returns them: ``(id, {field: value})``."""


class Watch(Protocol):
    """A key the hub reads for someone: a game's events, a player's seats."""

    @property
    def key(self) -> str: ...

    @property
    def cursor(self) -> str:
        """The stream id to read after."""
        ...

    def on_rows(self, rows: Rows) -> None:
        """The entries after :attr:`cursor` (called under the hub's lock)."""
        ...

    def close(self, reason: str) -> None:
        """Let every listener go (the key is no longer read)."""
        ...

    @property
    def idle(self) -> bool:
        """Whether no one listens any more (the key is then left out)."""
        ...


class Rounds(Protocol):
    """What a reader asks of its hub (:class:`service.hub.Hub`)."""

    def round_of(self, reader: Reader) -> dict[str, str] | None: ...

    def dispatch(self, reader: Reader, reply: Any, wake_id: str) -> str: ...

    def lost(self, reader: Reader, error: Exception) -> None: ...


log = logging.getLogger("cardroom.hub")

RETRY_PAUSE_S: Final = 0.2
"""How long a reader whose read failed waits before it reads again (if it still has keys)."""


class Reader:
    """One connection's blocking reads over up to ``capacity`` keys.

    Its key set is guarded by the hub's lock; :meth:`run` is its thread."""

    def __init__(
        self,
        hub: Rounds,
        tail: TailReader,
        tails: StreamTails,
        wake_key: str | None,
        capacity: int,
        block_ms: int,
    ) -> None:
        self.hub = hub
        self.tail = tail
        """The reader's own client: its blocking reads hold its one connection."""
        self.tails = tails
        """The store's, for the wake-ups (another connection than the read's)."""
        self.wake_key = wake_key
        self.capacity = capacity
        self.block_ms = block_ms
        self.keys: dict[str, Watch] = {}
        self.round: dict[str, Watch] = {}
        """The watches the read out now was sent for, by key (:meth:`Hub.round_of`)."""
        self.cursors: dict[str, str] = {}
        """Each key's cursor as the last round read it, kept from round to round."""
        self.stale: set[str] = set()
        """Keys whose cursor may have moved since (added, or given entries): asked
        of their watch again for the next round; the others' are not (a watch's
        cursor moves only when it is given entries)."""
        self.running = False
        self.rounds = 0
        self._wake_id = "0-0"
        self._wake_pending = False

    @property
    def full(self) -> bool:
        return len(self.keys) >= self.capacity

    def add(self, watch: Watch) -> bool:
        """Read ``watch``'s key from the next round; true when the blocked round
        must be woken (call :meth:`wake` outside the hub's lock)."""
        self.keys[watch.key] = watch
        self.stale.add(watch.key)
        if not self.running:
            self.running = True
            threading.Thread(target=self.run, name="cardroom-hub-reader", daemon=True).start()
            return False
        if self.wake_key is None or self._wake_pending:
            return False
        self._wake_pending = True
        return True

    def remove(self, key: str) -> None:
        """Leave ``key`` out from the next round."""
        self.keys.pop(key, None)
        self.cursors.pop(key, None)
        self.stale.discard(key)

    def next_cursors(self) -> dict[str, str]:
        """Every key's cursor for the next round (under the hub's lock)."""
        for key in self.stale:
            watch = self.keys.get(key)
            if watch is not None:
                self.cursors[key] = watch.cursor
        self.stale.clear()
        return dict(self.cursors)

    def wake(self) -> None:
        """End the blocked read, so that the next round reads the new keys."""
        assert self.wake_key is not None
        if not self.tails.wake(self.wake_key):
            log.warning("hub wake-up failed; the new key is read within %d ms", self.block_ms)

    def run(self) -> None:
        while True:
            streams = self.hub.round_of(self)
            if streams is None:
                return
            if self.wake_key is not None:
                streams[self.wake_key] = self._wake_id
            try:
                reply: Any = self.tail.read(streams, self.block_ms)
            except TailLost as lost:
                self.hub.lost(self, lost)
                time.sleep(RETRY_PAUSE_S)
                continue
            self.rounds += 1
            if reply:
                self._wake_id = self.hub.dispatch(self, reply, self._wake_id)
