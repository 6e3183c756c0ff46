"""Presence: seats coming back, and tables nobody acts at any more.

A seat that timed out its turns is marked away and played for at once; an
authenticated request of its own brings it back (:func:`seat_present`). A
started table where no person has acted for ``abandon_after_s`` is ended
(:func:`abandon_if_idle`). Both are appended like any command, at the
version they were decided on.
"""

from __future__ import annotations

import logging
from typing import Final

from service.engines import table
from service.store import VersionConflict

from .repository import CONFLICT_RETRIES, GameRepository, touch_quietly

log = logging.getLogger("cardroom.games")

ABANDONED_IDLE: Final = "idle"
"""The reason of a :class:`~service.engines.table.GameAbandoned` nobody acted for."""


def seat_present(
    repository: GameRepository, game_id: str, seat: int, state: table.Table | None = None
) -> None:
    """An authenticated request of ``seat`` (a view, a stream): if it was away, it is
    back (:class:`~service.engines.table.SeatBack`). Only its own move resets the
    count of turns it missed while not yet away. A bot's move for the seat that
    lands first is no reason to stay away: the seat is brought back on the new
    state (a few tries)."""
    for attempt in range(CONFLICT_RETRIES):
        if state is None or attempt:
            state = repository.load(game_id)
        events = table.come_back(state, seat) if table.is_away(state, seat) else []
        if not events:
            return
        try:
            repository.save(state, events)
        except VersionConflict:
            continue
        touch_quietly(repository.store, game_id)
        return


def abandon_if_idle(
    repository: GameRepository, game_id: str, limit_s: float, now_ms: int | None = None
) -> bool:
    """End a started game nobody has acted in for ``limit_s`` (no seat brought
    back, no move made by a person) at ``now_ms`` (Redis's time unless given):
    :class:`~service.engines.table.GameAbandoned`. A table with a seat still
    free is left to the retention pass, which expires it. Returns whether it
    was abandoned now."""
    if limit_s <= 0:
        return False
    store = repository.store
    now_ms = store.now_ms(game_id) if now_ms is None else now_ms
    state = repository.load(game_id)
    if state.over or not state.seated:
        return False  # a table that never started expires instead (service.retention)
    # the stream's last entry is the last move (a person's, a bot's or a
    # timeout's); the noted activity the last seat taken or brought back
    since_ms = store.last_activity(game_id)
    if since_ms is None or now_ms - since_ms < limit_s * 1000:
        return False
    events = table.abandon(state, ABANDONED_IDLE)
    if not events:
        return False
    try:
        repository.save(state, events)
    except VersionConflict:
        return False  # something happened meanwhile: look again next time
    log.info("game abandoned", extra={"game_id": game_id, "version": state.version + 1})
    return True
