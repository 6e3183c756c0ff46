"""The folded states a process keeps, newest per game."""

from __future__ import annotations

from typing import Final

from service.engines.table import Table

from .lru import LRU

DEFAULT_CACHE_SIZE: Final = 1024


class StateCache:
    """The newest folded state of up to ``maxsize`` games (an :class:`LRU`), each
    with the time of its last event's entry when known. States are immutable,
    so threads may share them."""

    def __init__(self, maxsize: int = DEFAULT_CACHE_SIZE) -> None:
        self.maxsize = maxsize
        self._states: LRU[str, tuple[Table, int | None]] = LRU(maxsize)

    def get(self, game_id: str) -> Table | None:
        entry = self.entry(game_id)
        return None if entry is None else entry[0]

    def entry(self, game_id: str) -> tuple[Table, int | None] | None:
        """The kept state and the time of its last event's entry (if known)."""
        return self._states.get(game_id)

    def put(self, state: Table, at_ms: int | None = None) -> None:
        """Keep ``state`` unless a newer state of its game is already kept.
        ``at_ms``: the time part of its last event's entry id, if known."""
        self._states.put(
            state.game_id, (state, at_ms), keep=lambda k: k[0].version >= state.version
        )

    def drop(self, game_id: str) -> None:
        self._states.drop(game_id)

    def clear(self) -> None:
        self._states.clear()

    def __len__(self) -> int:
        return len(self._states)
