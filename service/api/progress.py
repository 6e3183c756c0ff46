"""A game's progress in one shape for every game, for clients that do not know the rules.

Each engine's view speaks its own game (Azi's ``stacks`` and ``trick``,
Murlan's ``table``, Hazari's ``scores``); integrators asked for something
they can draw without that knowledge: who sits where, how many cards each
holds, scores or stacks, the pot, the cards on the table. This module maps
the engines' views onto that shape, reading only public fields.
"""

from __future__ import annotations

from typing import Any

from service.engines import table
from service.engines.base import JSON
from service.store import EventStore

from .turnclock import turn_clock


def _at(values: Any, i: int) -> Any:
    return values[i] if isinstance(values, list | tuple) and i < len(values) else None


def progress(state: table.Table, view: JSON) -> JSON:
    """The ``progress`` block of a view built from the engine's ``table`` view."""
    t: JSON = view.get("table") or {}
    to_act = set(view.get("to_act") or [])
    counts, scores, stacks = t.get("hand_counts"), t.get("scores"), t.get("stacks")
    players = []
    for i, seat in enumerate(state.seats):
        players.append(
            {
                "seat": i,
                "name": seat.name if seat is not None else None,
                "bot": seat.bot if seat is not None else False,
                "cards": _at(counts, i),
                "score": _at(scores, i),
                "stack": _at(stacks, i),
                "to_act": i in to_act,
            }
        )
    laid = t.get("table")
    hand_number = next(
        (t[k] for k in ("hand_number", "hand_no", "deal") if isinstance(t.get(k), int)), None
    )
    return {
        "phase": t.get("phase"),
        "hand_number": hand_number,
        "dealer": t.get("dealer"),
        "players": players,
        "pot": t.get("pot"),
        "trick": t.get("trick"),
        "table_cards": laid.get("cards") if isinstance(laid, dict) else None,
        "trump": t.get("trump"),
        "target": t.get("target"),
    }


def full_view(state: table.Table, viewer: int | None, store: EventStore | None = None) -> JSON:
    """The table fold's view of ``viewer`` with the common ``progress`` block and,
    given the store, the turn clock (``turn_limit_s``, ``turn_deadlines_ms``)."""
    view = table.view(state, viewer)
    view["progress"] = progress(state, view)
    if store is not None:
        view.update(turn_clock(store, state))
    return view
