"""The hub itself: which keys the process watches, on which reader, and the fan-out.

Everything that changes the watched set or a feed runs under one lock;
the network (a reader's ``XREAD``, a wake-up's ``XADD``, a stream's writes)
never does.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable
from typing import Any, Final, TypeVar

from service.engines import table
from service.store import EventStore, keys
from service.store.tails import wake_key

from .collector import Collector
from .feed import GameFeed, Renderer, Signal, Subscriber
from .reader import Reader, Rows, Watch, log
from .talk import TalkFeed, TalkListener

KEYS_PER_READER: Final = 512
"""Keys one reader's ``XREAD`` names at most: 10,000 streams over 2,500 games take 5 readers."""
MAX_PENDING: Final = 256
"""Batches a stream may have queued and not yet written before it is dropped as too slow."""
LONGEST_BLOCK_MS: Final = 2_000

W = TypeVar("W", bound=Watch)
T = TypeVar("T")


class Hub:
    """A process's live streams over a few Redis readers (see :mod:`service.hub`)."""

    def __init__(
        self,
        store: EventStore,
        renderer: Renderer,
        *,
        keys_per_reader: int = KEYS_PER_READER,
        max_pending: int = MAX_PENDING,
        collector: Collector | None = None,
    ) -> None:
        """``collector``: keeps the open streams out of the garbage collector's
        full passes (:mod:`.collector`; the stream server's, none elsewhere)."""
        self.store = store
        self.collector = collector
        self.renderer = renderer
        self.max_pending = max_pending
        self.tails = store.tails
        self.cluster = self.tails.cluster
        self.keys_per_reader = 1 if self.cluster else keys_per_reader
        self.block_ms = self.tails.block_ms(LONGEST_BLOCK_MS)
        self.id = secrets.token_hex(6)
        self.lock = threading.RLock()
        self.feeds: dict[str, GameFeed] = {}
        self.watches: dict[str, tuple[Watch, Reader]] = {}
        self.readers: list[Reader] = []
        self._made = 0

    # -- games ----------------------------------------------------------------------
    def subscribe(
        self, loaded: table.Table, viewer: int | None, signal: Signal
    ) -> tuple[Subscriber, table.Table]:
        """A new subscriber of ``loaded``'s game and the state its stream starts from
        (every batch after that state is queued on it)."""
        sub = Subscriber(viewer, signal)
        with self.lock:
            feed = self.feeds.get(loaded.game_id)
            woken = None
            if feed is None:
                feed = GameFeed(keys.events(loaded.game_id), loaded, self.renderer, self.deliver)
                self.feeds[loaded.game_id] = feed
                woken = self._watch(feed)
            start = feed.join(sub, loaded)
        if woken is not None:
            woken.wake()
        if self.collector is not None:
            self.collector.stream_opened()
        return sub, start

    def unsubscribe(self, sub: Subscriber) -> None:
        with self.lock:
            feed = sub.feed
            if feed is None:
                return
            sub.feed = None  # let go once (a stream's several ways out may each ask)
            feed.subscribers.discard(sub)
            if not feed.subscribers:
                self._unwatch(feed)
        if self.collector is not None:
            self.collector.stream_ended()

    def listen(self, game_id: str, after: str, signal: Signal) -> TalkListener:
        """A listener of the game's preset messages said after the talk stream's
        entry ``after`` (read by the stream before it subscribed), woken on ``signal``."""
        listener = TalkListener(after, signal)
        key = keys.talk(game_id)
        return self.attach(key, lambda: TalkFeed(key, after), TalkFeed, lambda f: f.join(listener))

    def unlisten(self, listener: TalkListener) -> None:
        with self.lock:
            feed = listener.feed
            if feed is None:
                return
            feed.listeners.discard(listener)
            if feed.idle:
                self._unwatch(feed)

    def gone(self, sub: Subscriber, every_ms: int) -> bool:
        """Whether a quiet game's table expired (:mod:`service.retention`), asked of
        Redis at most once per ``every_ms`` per game, whatever its streams."""
        feed = sub.feed
        if feed is None or feed.state.seated:
            return False
        now = int(time.monotonic() * 1000)
        if now - feed.checked_ms < every_ms:
            return False
        feed.checked_ms = now
        return not self.store.exists(feed.game_id)

    # -- any watched key ------------------------------------------------------------
    def attach(self, key: str, make: Callable[[], W], kind: type[W], join: Callable[[W], T]) -> T:
        """``join`` (under the lock) the watch of ``key``, made (and read from now
        on) if none is watched; what ``join`` answers."""
        woken = None
        with self.lock:
            held = self.watches.get(key)
            if held is not None and isinstance(held[0], kind):
                watch = held[0]
            else:
                watch = make()
                woken = self._watch(watch)
            joined = join(watch)
        if woken is not None:
            woken.wake()
        return joined

    def detach(self, watch: Watch) -> None:
        """Stop reading ``watch``'s key once no one listens to it."""
        with self.lock:
            if watch.idle:
                self._unwatch(watch)

    def _watch(self, watch: Watch) -> Reader | None:
        reader = next((r for r in self.readers if not r.full), None)
        if reader is None:
            self._made += 1
            wake = None if self.cluster else wake_key(self.id, self._made)
            tail = self.tails.reader()
            reader = Reader(self, tail, self.tails, wake, self.keys_per_reader, self.block_ms)
            self.readers.append(reader)
        self.watches[watch.key] = (watch, reader)
        return reader if reader.add(watch) else None

    def _unwatch(self, watch: Watch) -> None:
        held = self.watches.get(watch.key)
        if held is None or held[0] is not watch:
            return
        del self.watches[watch.key]
        held[1].remove(watch.key)
        if isinstance(watch, GameFeed):
            self.feeds.pop(watch.game_id, None)

    # -- the readers' side ----------------------------------------------------------
    def round_of(self, reader: Reader) -> dict[str, str] | None:
        """The keys and cursors of ``reader``'s next read; ``None``: it has none
        left and stops (a new key starts a new thread)."""
        with self.lock:
            if not reader.keys:
                reader.running = False
                if reader in self.readers:
                    self.readers.remove(reader)
                return None
            reader._wake_pending = False
            reader.round = dict(reader.keys)
            return reader.next_cursors()

    def dispatch(self, reader: Reader, reply: Any, wake_id: str) -> str:
        """Hand each key's entries to its watch; the wake key's last id.

        Entries go only to the watch whose cursor the round read after: a key
        let go and watched again while the read was out (a stream closed, another
        opened) has a new watch, with a cursor of its own, which the next round
        reads from. Given the old round's entries it would skip those between."""
        with self.lock:
            for raw_key, rows in reply:
                key = raw_key.decode()
                if key == reader.wake_key:
                    wake_id = rows[-1][0].decode()
                    continue
                watch = reader.keys.get(key)
                if watch is not None and reader.round.get(key) is watch:
                    watch.on_rows(rows)
                    reader.stale.add(key)
        return wake_id

    def deliver(self, feed: GameFeed, rows: Rows) -> None:
        """A game's new entries, to every subscriber (under the lock)."""
        events = self.store.decode(feed.state.kind, rows)
        times = self.store.entry_times
        game_id = feed.game_id
        feed.deliver(events, self.max_pending, lambda v, at: times.put((game_id, v), at))
        if feed.finished or not feed.subscribers:
            self._unwatch(feed)  # its streams end on the batch that finished it

    def lost(self, reader: Reader, error: Exception) -> None:
        """``reader``'s connection failed: its streams end (clients resume with
        ``after``) and it reads nothing more until new streams watch again."""
        log.warning("hub reader lost Redis (%s); its %d keys' streams end", error, len(reader.keys))
        with self.lock:
            for watch in list(reader.keys.values()):
                watch.close("redis")
                self._unwatch(watch)
            for key in list(reader.keys):
                reader.remove(key)

    def connections(self) -> int:
        """Readers running (each holds one Redis connection while it reads)."""
        with self.lock:
            return sum(1 for r in self.readers if r.running)
