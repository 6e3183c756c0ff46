"""``/games/{id}/replay`` and ``/games/{id}/verify``: the record of a game and its audit.

An ended game's public replay and its verification never change: they are
built once (:mod:`service.answers`) and served with an ``ETag`` and
``Cache-Control: public, max-age=31536000, immutable``. A running game's
``/verify`` re-plays every event each time: it is marked :func:`expensive`
for the rate limiter.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from flask import Blueprint, Response, request

from schemas.api import Replay, Verification
from service.answers import IMMUTABLE, Which, ended_answer
from service.replay import build_replay, verify_game
from service.retention import events_or_archive

from .http import bearer_token, reply, service

bp = Blueprint("replays", __name__)
F = TypeVar("F", bound=Callable[..., Response])


def expensive(view: F) -> F:
    """Marks a view whose cost grows with the game (``view.expensive``): a rate
    limiter should charge it more than an ordinary request."""
    view.expensive = True  # type: ignore[attr-defined]
    return view


def _immutable(game_id: str, which: Which) -> Response | None:
    hit = ended_answer(service().store, game_id, which)
    if hit is None:
        return None
    etag, text = hit
    headers = {"ETag": etag, "Cache-Control": IMMUTABLE}
    if request.if_none_match.contains_weak(etag.strip('"')):
        return Response(status=304, headers=headers)
    return Response(text, mimetype="application/json", headers=headers)


@bp.get("/games/<game_id>/replay")
def replay(game_id: str) -> Response:
    svc = service()
    seat = svc.authenticate(game_id, bearer_token(), required=False)
    if seat is None:
        cached = _immutable(game_id, "replay")
        if cached is not None:
            return cached
    state, stored = events_or_archive(svc.store, game_id)
    return reply(Replay.model_validate(build_replay(state, stored, seat)))


@bp.get("/games/<game_id>/verify")
@expensive
def verify(game_id: str) -> Response:
    cached = _immutable(game_id, "verify")
    if cached is not None:
        return cached
    state, stored = events_or_archive(service().store, game_id)
    return reply(Verification.model_validate(verify_game(state, stored)))
