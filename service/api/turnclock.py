"""When each seat's current turn times out, for the views.

The fold knows from which version each seat's turn has run
(:attr:`~service.engines.game.Game.turn_since`); the time of that version's
event (the ``at_ms`` of its stream entry, stamped by Redis's clock and
public like every event's) plus the table's turn limit
(:func:`service.store.clock.turn_deadline_ms`) is the moment, by Redis's
clock, the workers make the
timeout move for the seat (``workers.jobs``), so the views can show a
countdown that agrees with them. Seats the bot plays (bots, seats marked
away) have no deadline: they move at once.

An event's time never changes once appended, so the times looked up are
kept in a small in-process cache; the live stream hands in the times of the
events it has just read, so its views need no extra round trip.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Final

from service.engines import game as table
from service.engines.base import JSON
from service.store import DEFAULT_CACHE, EventStore
from service.store.clock import turn_deadline_ms

TIMES_CACHE_SIZE: Final = 4096


class EntryTimes:
    """``(game_id, version) -> at_ms`` of stream entries, least recently used dropped
    first; thread-safe."""

    def __init__(self, maxsize: int = TIMES_CACHE_SIZE) -> None:
        self.maxsize = maxsize
        self._times: OrderedDict[tuple[str, int], int] = OrderedDict()
        self._lock = threading.Lock()

    def put(self, game_id: str, version: int, at_ms: int) -> None:
        with self._lock:
            self._times[(game_id, version)] = at_ms
            self._times.move_to_end((game_id, version))
            while len(self._times) > self.maxsize:
                self._times.popitem(last=False)

    def get(self, game_id: str, version: int) -> int | None:
        with self._lock:
            at = self._times.get((game_id, version))
            if at is not None:
                self._times.move_to_end((game_id, version))
            return at

    def lookup(self, store: EventStore, state: table.Game, version: int) -> int | None:
        """The time of ``state``'s event ``version``: kept, the cached state's last, or
        read from the stream (``None`` if the stream no longer has it)."""
        game_id = state.game_id
        at = self.get(game_id, version)
        if at is not None:
            return at
        entry = DEFAULT_CACHE.entry(game_id)
        if entry is not None and entry[0].version == version and entry[1] is not None:
            at = entry[1]
        else:
            at = store.entries.entry_time(game_id, version)
            if at is None:
                return None
        self.put(game_id, version, at)
        return at

    def clear(self) -> None:
        with self._lock:
            self._times.clear()


TIMES: Final = EntryTimes()


def turn_clock(store: EventStore, state: table.Game) -> JSON:
    """``turn_limit_s`` (the table's limit, null: none) and ``turn_deadlines_ms`` (per
    seat: when its running turn times out, ms since the epoch, or null)."""
    limit = state.turn_timeout_s
    deadlines: list[int | None] = [None] * state.seat_count
    if limit is not None:
        for seat, since in enumerate(state.turn_since):
            if not since or table.plays_automatically(state, seat):
                continue
            began = TIMES.lookup(store, state, since)
            if began is not None:
                deadlines[seat] = turn_deadline_ms(began, limit)
    return {"turn_limit_s": limit, "turn_deadlines_ms": deadlines}
