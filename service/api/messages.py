"""``/games/{id}/messages``: preset table messages (codes only, never free text).

A seat says one of :data:`schemas.api.MessageCode` with its token; a seat may say one
message per :data:`MESSAGE_GAP_MS` (a ``429 rate-limited`` with ``Retry-After`` before
that, counted in Redis for every API process). Everyone at the table hears it on the
live stream (a ``message`` line); ``GET`` reads the latest ones, or those after an id
(``?after=``: how a table without its stream reads them, each once)."""

from __future__ import annotations

from typing import Final

from flask import Blueprint, Response

from schemas.api import MessagesPage, MessagesQuery, SayRequest, TableMessage
from service.errors import RateLimited

from .http import bearer_token, body, query, reply, service

bp = Blueprint("messages", __name__)

MESSAGE_GAP_MS: Final = 3000
"""A seat says at most one message in this long."""


@bp.post("/games/<game_id>/messages")
def say(game_id: str) -> Response:
    svc = service()
    seat, _ = svc.seat_and_state(game_id, bearer_token())
    req = body(SayRequest)
    wait = svc.store.talk.wait_ms(game_id, seat, MESSAGE_GAP_MS)
    if wait:
        raise RateLimited("messages", "this seat", "1 message per 3 seconds", wait)
    said = svc.store.talk.say(game_id, seat, req.code)
    return reply(TableMessage.model_validate(said.json()), 201)


@bp.get("/games/<game_id>/messages")
def messages(game_id: str) -> Response:
    svc = service()
    q = query(MessagesQuery)
    svc.load(game_id)  # an unknown game is a 404, an expired table a 410
    items = [m.json() for m in svc.store.talk.recent(game_id, q.after)]
    return reply(MessagesPage.model_validate({"items": items}))
