"""``/games/{id}/webhooks``: a seat's webhooks, their delivery log and redelivery.

Every route takes the seat's token; a seat sees and changes only its own
subscriptions (another seat's are not found).
"""

from __future__ import annotations

from flask import Blueprint, Response, current_app, request

from schemas.api import CreateWebhookRequest
from service.runtime import Runtime
from service.webhooks.subscriptions import Webhooks, public

from .http import bearer_token, body, reply, service

bp = Blueprint("webhooks", __name__)


def _hooks() -> Webhooks:
    runtime: Runtime = current_app.extensions["cardroom_runtime"]
    return runtime.webhooks


def _seat(game_id: str) -> tuple[int, bool]:
    seat, state = service().seat_and_state(game_id, bearer_token())
    return seat, state.over


@bp.post("/games/<game_id>/webhooks")
def create_webhook(game_id: str) -> Response:
    seat, over = _seat(game_id)
    req = body(CreateWebhookRequest)
    made = _hooks().create(game_id, seat, over, req.url, req.events, request.remote_addr or "-")
    return reply(made, 201)


@bp.get("/games/<game_id>/webhooks")
def list_webhooks(game_id: str) -> Response:
    seat, _ = _seat(game_id)
    return reply({"items": [public(s) for s in _hooks().mine(game_id, seat)]})


@bp.delete("/games/<game_id>/webhooks/<hook_id>")
def delete_webhook(game_id: str, hook_id: str) -> Response:
    seat, _ = _seat(game_id)
    _hooks().delete(game_id, seat, hook_id)
    return Response(status=204)


@bp.post("/games/<game_id>/webhooks/<hook_id>/rotate")
def rotate_secret(game_id: str, hook_id: str) -> Response:
    seat, _ = _seat(game_id)
    return reply(_hooks().rotate(game_id, seat, hook_id))


@bp.get("/games/<game_id>/webhooks/<hook_id>/deliveries")
def list_deliveries(game_id: str, hook_id: str) -> Response:
    seat, _ = _seat(game_id)
    return reply({"items": _hooks().deliveries(game_id, seat, hook_id)})


@bp.post("/games/<game_id>/webhooks/<hook_id>/deliveries/<delivery_id>/redeliver")
def redeliver(game_id: str, hook_id: str, delivery_id: str) -> Response:
    seat, _ = _seat(game_id)
    return reply(_hooks().redeliver(game_id, seat, hook_id, delivery_id), 202)
