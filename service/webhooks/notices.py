"""Which webhook events an append decides, as the append script takes them.

``turn_started`` for each seat whose turn began in the events (not a bot's, nor
an away seat's, whose moves the bot makes), ``seat_away`` for each seat marked
away, ``hand_ended`` (every seat) when a hand ends, ``game_ended`` (every seat)
when the game does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from service.engines import table
from service.engines.base import Event
from service.store import clock

HAND_ENDS: Final = frozenset({"HandEnded", "DealScored", "PotSettled"})
"""The events that end a hand: Murlan's, Hazari's deal and Azi's pot."""


def notices(old: table.Table, new: table.Table, events: Sequence[Event]) -> tuple[str, ...]:
    """The webhook events of ``events`` (taking ``old`` to ``new``), each
    ``"event:seat:limit_ms"`` (seat ``*``: every seat's subscriptions)."""
    out: list[str] = []
    limit = "" if new.turn_timeout_s is None else str(clock.limit_ms(new.turn_timeout_s))
    begun, _ = table.turn_changes(new, old.version)
    for seat in sorted(begun):
        if not table.plays_automatically(new, seat):
            out.append(f"turn_started:{seat}:{limit}")
    for event in events:
        if isinstance(event, table.SeatAway):
            out.append(f"seat_away:{event.seat}:")
    if any(e.type in HAND_ENDS for e in events):
        out.append("hand_ended:*:")
    if new.over and not old.over:
        out.append("game_ended:*:")
    return tuple(out)
