"""The load path: the current state of a game, as cheaply as it can be had.

A state is the latest snapshot plus the fold of the events after it. Folded
states are also kept in memory, newest per game, and reused only after
asking the stream for its last entry (one ``XREVRANGE … COUNT 1``): a cached
state older than the stream is brought up to date by folding just the
missing tail, so a stale state is never served as the current one.

A cached state also remembers the entry id (version and time) of its last
event when known. A failover of Redis may lose the newest events of a game
(see ``docs/operations.md``), after which other events can take their
versions; a cached state that includes a lost event is then either ahead
of the stream or names an entry that is not there, and is dropped instead
of being served or built upon.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Final

from service.engines.game import Game, fold

from .errors import GameNotFound
from .eventstore import EventStore, StoredEvent

DEFAULT_CACHE_SIZE: Final = 1024

__all__ = ["DEFAULT_CACHE", "GameNotFound", "StateCache", "load_game"]


class StateCache:
    """The newest folded state of up to ``maxsize`` games, least recently used
    dropped first, each with the time of its last event's entry when known.
    States are immutable, so threads may share them."""

    def __init__(self, maxsize: int = DEFAULT_CACHE_SIZE) -> None:
        self.maxsize = maxsize
        self._states: OrderedDict[str, tuple[Game, int | None]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, game_id: str) -> Game | None:
        entry = self.entry(game_id)
        return None if entry is None else entry[0]

    def entry(self, game_id: str) -> tuple[Game, int | None] | None:
        """The kept state and the time of its last event's entry (if known)."""
        with self._lock:
            entry = self._states.get(game_id)
            if entry is not None:
                self._states.move_to_end(game_id)
            return entry

    def put(self, state: Game, at_ms: int | None = None) -> None:
        """Keep ``state`` unless a newer state of its game is already kept.
        ``at_ms``: the time part of its last event's entry id, if known."""
        with self._lock:
            kept = self._states.get(state.game_id)
            if kept is None or kept[0].version < state.version:
                self._states[state.game_id] = (state, at_ms)
            self._states.move_to_end(state.game_id)
            while len(self._states) > self.maxsize:
                self._states.popitem(last=False)

    def drop(self, game_id: str) -> None:
        with self._lock:
            self._states.pop(game_id, None)

    def clear(self) -> None:
        with self._lock:
            self._states.clear()

    def __len__(self) -> int:
        return len(self._states)


DEFAULT_CACHE: Final = StateCache()


def load_game(
    store: EventStore,
    game_id: str,
    cache: StateCache | None = DEFAULT_CACHE,
    snapshot_every: int | None = None,
) -> Game:
    """The game's state at (at least) the stream's version when called.

    ``snapshot_every``: save a new snapshot when this many events or more had
    to be folded, so later loads start closer to the end.
    """
    last = store.last_entry(game_id)
    if last is None:
        raise GameNotFound(game_id)
    version, last_at = last
    cached = cache.entry(game_id) if cache is not None else None
    if cache is not None and cached is not None:
        kept, kept_at = cached
        if kept.version == version and kept_at in (None, last_at):
            return kept
        if kept.version < version:
            newer = _tail_after(store, game_id, kept, kept_at)
            if newer is not None:
                return _fold_and_keep(store, cache, kept, newer, None, snapshot_every)
        cache.drop(game_id)  # it holds events the stream no longer has
    base = store.load_snapshot(game_id)
    tail = store.read(game_id, after=base.version if base is not None else 0)
    if base is None and not tail:
        raise GameNotFound(game_id)
    # A snapshot of the stream's very end is the state after its last entry.
    end_at = last_at if base is not None and base.version == version else None
    return _fold_and_keep(store, cache, base, tail, end_at, snapshot_every)


def _tail_after(
    store: EventStore, game_id: str, state: Game, at_ms: int | None
) -> list[StoredEvent] | None:
    """The events after the cached ``state``, or ``None`` if the stream's entry
    at its version is not the one it was folded from. Reads that entry too
    (when its time is known), in the same ``XRANGE``."""
    if at_ms is None:
        return store.read(game_id, after=state.version)
    rows = store.read(game_id, after=state.version - 1)
    if not rows or (rows[0].version, rows[0].at_ms) != (state.version, at_ms):
        return None
    return rows[1:]


def _fold_and_keep(
    store: EventStore,
    cache: StateCache | None,
    base: Game | None,
    tail: list[StoredEvent],
    end_at: int | None,
    snapshot_every: int | None,
) -> Game:
    """``tail`` folded onto ``base``, cached with its last entry's time
    (``end_at`` when there is no tail)."""
    state = fold([stored.event for stored in tail], base) if tail else base
    assert state is not None
    if cache is not None:
        cache.put(state, tail[-1].at_ms if tail else end_at)
    if snapshot_every is not None and len(tail) >= snapshot_every:
        store.save_snapshot(state.game_id, state)
    return state
