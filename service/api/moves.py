"""``/games/{id}/moves``: a seat's move, checked by the engine and appended atomically."""

from __future__ import annotations

from flask import Blueprint, Response, g

from schemas.api import MoveRequest

from .http import bearer_token, body, reply, service
from .limits import charge_move

bp = Blueprint("moves", __name__)


@bp.post("/games/<game_id>/moves")
def submit_move(game_id: str) -> Response:
    svc = service()
    seat, state, cached = svc.seat_for_move(game_id, bearer_token())
    g.cardroom_game = state.kind  # for the moves metric, no look-up needed
    charge_move(game_id, seat)
    req = body(MoveRequest)
    result = svc.submit_move(
        game_id, seat, req.move, req.expected_version, req.idempotency_key, state, cached
    )
    headers = {"Idempotent-Replayed": "true"} if result.replayed else {}
    g.cardroom_move_version = result.body["version"]  # for the request's log line
    if result.text is not None:
        response = Response(result.text, status=201, mimetype="application/json")
        response.headers.update(headers)
        return response
    return reply(result.body, 201, **headers)
