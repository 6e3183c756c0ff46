"""Caps on concurrent live streams, with doors a crowd of spectators cannot close.

A live stream is held open for as long as its client wants, so streams are
counted while open and a new one beyond a cap is refused at once with a 429
(``too-many-streams``) instead of queueing. Counts are per serving process
(the stream server's, or the API's in the embedded default); a process
crash frees its slots with it.

Seats and spectators are counted apart, so that spectators, however many
addresses they come from, never take a seat's way in:

* every stream counts against its client address (``per_address``) and the
  process's hard cap (``total``);
* a spectator's stream (no seat token) also counts against the game's
  spectator cap (``per_game``) and the spectators' share of the process
  (``spectators_total``, the rest being kept for seats);
* a seat's stream (its token checked before it gets here) counts against
  that seat's own few slots (``per_seat``) and against no game or spectator
  cap, so a game's seats always get in while its spectators are full.

A refusal tells the client to read views by polling meanwhile
(``poll_after_s``) and to try the stream again later (``retry_after_s``).
"""

from __future__ import annotations

import math
import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import TypeVar

from service.config import Settings
from service.metrics import STREAMS_OPEN, STREAMS_REFUSED

from .apierror import ApiLayerError

K = TypeVar("K")

SCOPES = {
    "address": "from this address",
    "game": "watching this game",
    "seat": "of this seat",
    "process": "on this server",
    "spectators": "of spectators on this server",
}


class TooManyStreams(ApiLayerError):
    """A new live stream beyond one of the caps; the client should poll meanwhile."""

    def __init__(self, scope: str, limit: int, poll_after_s: int, retry_after_s: int) -> None:
        self.scope = scope
        self.limit = limit
        self.poll_after_s = poll_after_s
        self.retry_after_s = retry_after_s
        super().__init__(
            f"{limit} live streams {SCOPES[scope]} are open already; read GET /games/{{id}} "
            f"every {poll_after_s} s meanwhile and try the stream again after "
            f"{retry_after_s} s"
        )


def share(total: int, fraction: float) -> int:
    """The spectators' part of ``total`` slots: at least one, and never all of them
    when there are two or more."""
    if total <= 1:
        return total
    return max(1, min(total - 1, math.floor(total * fraction)))


@dataclass
class StreamSlots:
    per_address: int
    per_game: int
    total: int
    per_seat: int = 3
    spectators_total: int | None = None
    """Spectators' streams the process holds at most; ``None``: :func:`share` of 3/4."""
    poll_after_s: int = 5
    retry_after_s: int = 30
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _by_address: Counter[str] = field(default_factory=Counter)
    _watching: Counter[str] = field(default_factory=Counter)
    _by_seat: Counter[tuple[str, int]] = field(default_factory=Counter)
    _open: int = 0
    _spectators: int = 0

    def __post_init__(self) -> None:
        if self.spectators_total is None:
            self.spectators_total = share(self.total, 0.75)

    @classmethod
    def from_settings(cls, settings: Settings) -> StreamSlots:
        return cls(
            per_address=settings.streams_per_address,
            per_game=settings.streams_per_game,
            total=settings.streams_max,
            per_seat=settings.streams_per_seat,
            spectators_total=share(settings.streams_max, settings.streams_spectator_share),
            poll_after_s=settings.streams_poll_after_s,
            retry_after_s=settings.streams_retry_after_s,
        )

    @property
    def open(self) -> int:
        return self._open

    @property
    def spectators(self) -> int:
        return self._spectators

    def _refuse(self, scope: str, limit: int) -> TooManyStreams:
        return TooManyStreams(scope, limit, self.poll_after_s, self.retry_after_s)

    def _check(self, address: str, game_id: str, seat: int | None) -> None:
        if self._open >= self.total:
            raise self._refuse("process", self.total)
        if self._by_address[address] >= self.per_address:
            raise self._refuse("address", self.per_address)
        if seat is not None:
            if self._by_seat[(game_id, seat)] >= self.per_seat:
                raise self._refuse("seat", self.per_seat)
            return
        assert self.spectators_total is not None
        if self._spectators >= self.spectators_total:
            raise self._refuse("spectators", self.spectators_total)
        if self._watching[game_id] >= self.per_game:
            raise self._refuse("game", self.per_game)

    def acquire(self, address: str, game_id: str, seat: int | None = None) -> None:
        """Count one more stream of ``seat`` (``None``: a spectator's), or raise
        :class:`TooManyStreams` (counting nothing)."""
        with self._lock:
            try:
                self._check(address, game_id, seat)
            except TooManyStreams as refused:
                STREAMS_REFUSED.labels(refused.scope).inc()
                raise
            STREAMS_OPEN.labels(_kind(seat)).inc()
            self._open += 1
            self._by_address[address] += 1
            if seat is None:
                self._spectators += 1
                self._watching[game_id] += 1
            else:
                self._by_seat[(game_id, seat)] += 1

    def release(self, address: str, game_id: str, seat: int | None = None) -> None:
        with self._lock:
            STREAMS_OPEN.labels(_kind(seat)).dec()
            self._open -= 1
            _drop(self._by_address, address)
            if seat is None:
                self._spectators -= 1
                _drop(self._watching, game_id)
            else:
                _drop(self._by_seat, (game_id, seat))

    def acquire_player(self, address: str) -> None:
        """Count a player's stream (``GET /players/me/events``): one stream against
        the address's and the process's caps, whatever games it follows."""
        with self._lock:
            if self._open >= self.total:
                refused = self._refuse("process", self.total)
            elif self._by_address[address] >= self.per_address:
                refused = self._refuse("address", self.per_address)
            else:
                STREAMS_OPEN.labels("player").inc()
                self._open += 1
                self._by_address[address] += 1
                return
            STREAMS_REFUSED.labels(refused.scope).inc()
            raise refused

    def release_player(self, address: str) -> None:
        with self._lock:
            STREAMS_OPEN.labels("player").dec()
            self._open -= 1
            _drop(self._by_address, address)


def _kind(seat: int | None) -> str:
    return "spectator" if seat is None else "seat"


def _drop(counter: Counter[K], key: K) -> None:
    counter[key] -= 1
    if counter[key] <= 0:
        del counter[key]
