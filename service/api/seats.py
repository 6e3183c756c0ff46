"""``/games/{id}/seats``: take a seat (the last one starts the game)."""

from __future__ import annotations

from flask import Blueprint, Response, request

from schemas.api import SeatGranted, TakeSeatRequest
from service.engines import table
from service.errors import BadClientSecret
from service.idempotency import CLIENT_ID, CLIENT_SECRET, creation_scope

from .http import bearer_token, body, reply, service
from .players import bind_seat, player_of

bp = Blueprint("seats", __name__)


@bp.post("/games/<game_id>/seats")
def take_seat(game_id: str) -> Response:
    req = body(TakeSeatRequest)
    svc = service()
    if bearer_token() is not None:
        svc.load(game_id)  # an unknown game is a 404 before the key is judged
    player_id = player_of(svc, required=False)  # a player key binds the seat to its player
    grant = svc.take_seat(
        game_id,
        req.name,
        req.client_seed,
        req.bot,
        idempotency_key=req.idempotency_key,
        scope=_scope(),
    )
    if player_id is not None and grant.token is not None:
        bind_seat(svc, player_id, grant.state, grant.seat, grant.token)
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


def _scope() -> str | None:
    """The requesting client's scope, as ``POST /games`` reads it: the seat the
    table's creator takes is marked so (a malformed secret marks nothing)."""
    try:
        return creation_scope(
            request.headers.get(CLIENT_SECRET),
            request.headers.get(CLIENT_ID),
            request.remote_addr or "",
        )
    except BadClientSecret:
        return None


def _origin(state: table.Table, seat: int) -> str | None:
    info = state.seats[seat] if 0 <= seat < len(state.seats) else None
    return info.seed_origin if info is not None else None
