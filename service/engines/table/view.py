"""What a seat (or the public) sees of a table: the redacted events and the view."""

from __future__ import annotations

from ..base import JSON, Event
from .state import Table


def redact(state: Table, event: Event, viewer: int | None) -> Event:
    """``event`` as ``viewer`` may see it; everything is public once the game ended."""
    if state.over and state.server_seed is not None:
        return event
    return event.redact(viewer)


def seat_rows(state: Table) -> list[JSON]:
    """Every seat as the views show it: who sits there, or a free seat's nulls."""
    return [
        s.as_json()
        if s is not None
        else {
            "seat": i,
            "name": None,
            "client_seed": None,
            "bot": False,
            "seed_origin": None,
            "creator": False,
        }
        for i, s in enumerate(state.seats)
    ]


def view(state: Table, viewer: int | None) -> JSON:
    """The whole view of a game for a seat (or the public)."""
    engine = state.engine
    to_act = list(engine.to_act(state.engine_state)) if state.seated and not state.over else []
    out: JSON = {
        "game_id": state.game_id,
        "game": state.kind,
        "status": state.status,
        "version": state.version,
        "options": state.options,
        "commitment": state.commitment,
        "server_seed": state.server_seed,
        "seats": seat_rows(state),
        "to_act": to_act,
        "away": sorted(state.away),
        "abandoned": state.abandoned,
        "table": {"game": state.kind, **engine.view(state.engine_state, viewer)},
        "result": engine.result(state.engine_state),
    }
    if viewer is not None:
        out["seat"] = viewer
        out["hand"] = out["table"].get("hand", [])
        out["legal_moves"] = (
            engine.legal_moves(state.engine_state, viewer) if viewer in to_act else []
        )
        out["legal_moves_complete"] = engine.legal_moves_complete
    return out
