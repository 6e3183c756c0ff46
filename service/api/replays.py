"""``/games/{id}/replay`` and ``/games/{id}/verify``: the record of a game and its audit."""

from __future__ import annotations

from flask import Blueprint, Response

from schemas.api import Replay, Verification
from service.replay import build_replay, verify_game

from .http import bearer_token, reply, service

bp = Blueprint("replays", __name__)


@bp.get("/games/<game_id>/replay")
def replay(game_id: str) -> Response:
    svc = service()
    seat = svc.authenticate(game_id, bearer_token(), required=False)
    state, stored = svc.events(game_id)
    return reply(Replay.model_validate(build_replay(state, stored, seat)))


@bp.get("/games/<game_id>/verify")
def verify(game_id: str) -> Response:
    state, stored = service().events(game_id)
    return reply(Verification.model_validate(verify_game(state, stored)))
