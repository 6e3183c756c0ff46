"""When each seat's current turn times out, for the views.

The fold knows from which version each seat's turn has run
(:attr:`~service.engines.table.Table.turn_since`); the time of that version's
event (the ``at_ms`` of its stream entry, stamped by Redis's clock and
public like every event's) plus the table's turn limit
(:func:`service.store.clock.turn_deadline_ms`) is the moment, by Redis's
clock, the workers make the
timeout move for the seat (``workers.jobs``), so the views can show a
countdown that agrees with them. Seats the bot plays (bots, seats marked
away) have no deadline: they move at once.

An event's time never changes once appended, so the times looked up are
kept by the store (:meth:`~service.store.EventStore.entry_time`); the live
stream hands in the times of the events it has just read, so its views need
no extra round trip.
"""

from __future__ import annotations

from service.engines import table
from service.engines.base import JSON
from service.store import EventStore
from service.store.clock import turn_deadline_ms


def turn_clock(store: EventStore, state: table.Table) -> JSON:
    """``turn_limit_s`` (the table's limit, null: none) and ``turn_deadlines_ms`` (per
    seat: when its running turn times out, ms since the epoch, or null)."""
    limit = state.turn_timeout_s
    deadlines: list[int | None] = [None] * state.seat_count
    if limit is not None:
        for seat, since in enumerate(state.turn_since):
            if not since or table.plays_automatically(state, seat):
                continue
            began = store.entry_time(state.game_id, since)
            if began is not None:
                deadlines[seat] = turn_deadline_ms(began, limit)
    return {"turn_limit_s": limit, "turn_deadlines_ms": deadlines}
