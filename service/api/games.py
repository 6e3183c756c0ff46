"""``/games``: open a table, list tables, look at one."""

from __future__ import annotations

from flask import Blueprint, Response, request

from schemas.api import CreateGameRequest, GameCreated, GamesPage, ListGamesQuery
from service.engines.table.view import seat_rows
from service.idempotency import CLIENT_ID, CLIENT_SECRET, creation_scope

from .http import bearer_token, body, query, reply, service
from .views import view_json

bp = Blueprint("games", __name__)


@bp.post("/games")
def create_game() -> Response:
    req = body(CreateGameRequest)
    scope = creation_scope(
        request.headers.get(CLIENT_SECRET),
        request.headers.get(CLIENT_ID),
        request.remote_addr or "",
    )
    bots = [(b.seat, b.name) for b in req.bots or ()]
    opened = service().open_table(
        req.game, req.options, req.seats, req.idempotency_key, scope, bots
    )
    state = opened.state
    created = GameCreated.model_validate(
        {
            "game_id": state.game_id,
            "game": state.kind,
            "seats": state.seat_count,
            "seat_list": seat_rows(state),
            "options": state.options,
            "commitment": state.commitment,
            "algorithm": "cardroom-shuffle-v1",
            "status": state.status,
            "version": state.version,
        }
    )
    headers = {"Idempotent-Replayed": "true"} if opened.replayed else {}
    return reply(created, 201, Location=f"/games/{state.game_id}", **headers)


@bp.get("/games")
def list_games() -> Response:
    q = query(ListGamesQuery)
    items, cursor = service().list_games(q.game, q.status, q.limit, q.cursor)
    return reply(GamesPage.model_validate({"items": items, "next_cursor": cursor}))


@bp.get("/games/<game_id>")
def get_game(game_id: str) -> Response:
    text = view_json(service(), game_id, bearer_token())
    return Response(text, status=200, mimetype="application/json")
