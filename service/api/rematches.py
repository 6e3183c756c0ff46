"""``/games/{id}/rematch``: play the ended game again with the same options and seats,
once every seat played by a person has asked (see :mod:`service.rematch`)."""

from __future__ import annotations

from flask import Blueprint, Response

from schemas.api import Rematch, RematchSeat
from service.rematch import Rematches, RematchStatus

from .http import bearer_token, reply, service

bp = Blueprint("rematches", __name__)


@bp.post("/games/<game_id>/rematch")
def ask_rematch(game_id: str) -> Response:
    return reply(_model(Rematches(service()).confirm(game_id, bearer_token())))


@bp.get("/games/<game_id>/rematch")
def rematch_status(game_id: str) -> Response:
    return reply(_model(Rematches(service()).status(game_id, bearer_token())))


def _model(status: RematchStatus) -> Rematch:
    nxt = status.next
    return Rematch(
        game_id=status.game_id,
        seat=status.seat,
        confirmed=status.confirmed,
        waiting_for=status.waiting_for,
        next=None
        if nxt is None
        else RematchSeat(game_id=nxt.game_id, seat=nxt.seat, token=nxt.token),
    )
