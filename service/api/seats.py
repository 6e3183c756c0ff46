"""``/games/{id}/seats``: take a seat (the last one starts the game)."""

from __future__ import annotations

from flask import Blueprint, Response

from schemas.api import SeatGranted, TakeSeatRequest
from service.engines import table

from .http import body, reply, service

bp = Blueprint("seats", __name__)


@bp.post("/games/<game_id>/seats")
def take_seat(game_id: str) -> Response:
    req = body(TakeSeatRequest)
    grant = service().take_seat(
        game_id, req.name, req.client_seed, req.bot, idempotency_key=req.idempotency_key
    )
    granted = SeatGranted(
        game_id=game_id,
        seat=grant.seat,
        name=grant.name,
        bot=grant.bot,
        client_seed=grant.client_seed,
        seed_origin=_origin(grant.state, grant.seat),  # type: ignore[arg-type]
        token=grant.token,
        version=grant.state.version,
    )
    return reply(granted, 201)


def _origin(state: table.Table, seat: int) -> str | None:
    info = state.seats[seat] if 0 <= seat < len(state.seats) else None
    return info.seed_origin if info is not None else None
