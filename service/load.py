"""The load path: the current state of a game, as cheaply as it can be had.

A state is the latest snapshot plus the fold of the events after it. Folded
states are also kept in memory, newest per game, and reused only after
asking the stream for its version (one ``XLEN``): a cached state older than
the stream is brought up to date by folding just the missing tail, so a
stale state is never served as the current one.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Final

from service.engines.game import Game, fold

from .errors import GameNotFound
from .store import EventStore

DEFAULT_CACHE_SIZE: Final = 1024

__all__ = ["GameNotFound", "StateCache", "load_game"]


class StateCache:
    """The newest folded state of up to ``maxsize`` games, least recently used
    dropped first. States are immutable, so threads may share them."""

    def __init__(self, maxsize: int = DEFAULT_CACHE_SIZE) -> None:
        self.maxsize = maxsize
        self._states: OrderedDict[str, Game] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, game_id: str) -> Game | None:
        with self._lock:
            state = self._states.get(game_id)
            if state is not None:
                self._states.move_to_end(game_id)
            return state

    def put(self, state: Game) -> None:
        """Keep ``state`` unless a newer state of its game is already kept."""
        with self._lock:
            kept = self._states.get(state.game_id)
            if kept is None or kept.version < state.version:
                self._states[state.game_id] = state
            self._states.move_to_end(state.game_id)
            while len(self._states) > self.maxsize:
                self._states.popitem(last=False)

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
    version = store.version(game_id)
    if version == 0:
        raise GameNotFound(game_id)
    base = cache.get(game_id) if cache is not None else None
    if base is not None and base.version >= version:
        return base
    if base is None:
        base = store.load_snapshot(game_id)
    tail = store.read(game_id, after=base.version if base is not None else 0)
    if base is None and not tail:
        raise GameNotFound(game_id)
    state = fold([stored.event for stored in tail], base) if tail else base
    assert state is not None
    if cache is not None:
        cache.put(state)
    if snapshot_every is not None and len(tail) >= snapshot_every:
        store.save_snapshot(game_id, state)
    return state
