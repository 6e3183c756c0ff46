"""Caps on concurrent live streams: per client address, per game, per process.

A live stream is held open for as long as its client wants, so streams are
counted while open and a new one beyond a cap is refused at once with a 429
(``too-many-streams``) instead of queueing. Counts are per serving process
(the stream server's, or the API's in the embedded default); a process
crash frees its slots with it.
"""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass, field

from service.config import Settings


class TooManyStreams(Exception):
    """A new live stream beyond one of the caps."""

    def __init__(self, scope: str, limit: int) -> None:
        self.scope = scope
        self.limit = limit
        what = {
            "address": "from this address",
            "game": "of this game",
            "process": "on this server",
        }[scope]
        super().__init__(
            f"{limit} live streams {what} are open already; close one or read "
            "GET /games/{id}/events pages instead"
        )


@dataclass
class StreamSlots:
    per_address: int
    per_game: int
    total: int
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _by_address: Counter[str] = field(default_factory=Counter)
    _by_game: Counter[str] = field(default_factory=Counter)
    _open: int = 0

    @classmethod
    def from_settings(cls, settings: Settings) -> StreamSlots:
        return cls(settings.streams_per_address, settings.streams_per_game, settings.streams_max)

    @property
    def open(self) -> int:
        return self._open

    def acquire(self, address: str, game_id: str) -> None:
        """Count one more stream, or :class:`TooManyStreams` (counting nothing)."""
        with self._lock:
            if self._open >= self.total:
                raise TooManyStreams("process", self.total)
            if self._by_address[address] >= self.per_address:
                raise TooManyStreams("address", self.per_address)
            if self._by_game[game_id] >= self.per_game:
                raise TooManyStreams("game", self.per_game)
            self._open += 1
            self._by_address[address] += 1
            self._by_game[game_id] += 1

    def release(self, address: str, game_id: str) -> None:
        with self._lock:
            self._open -= 1
            self._by_address[address] -= 1
            if self._by_address[address] <= 0:
                del self._by_address[address]
            self._by_game[game_id] -= 1
            if self._by_game[game_id] <= 0:
                del self._by_game[game_id]
