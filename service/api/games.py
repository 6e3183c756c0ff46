"""``/games``: open a table, list tables, look at one."""

from __future__ import annotations

from flask import Blueprint, Response

from schemas.api import CreateGameRequest, GameCreated, GamesPage, ListGamesQuery

from .http import bearer_token, body, query, reply, service
from .views import view_json

bp = Blueprint("games", __name__)


@bp.post("/games")
def create_game() -> Response:
    req = body(CreateGameRequest)
    state = service().create_game(req.game, req.options, req.seats)
    created = GameCreated(
        game_id=state.game_id,
        game=state.game,  # type: ignore[arg-type]
        seats=state.seat_count,
        options=state.options,
        commitment=state.commitment,
        algorithm="cardroom-shuffle-v1",
        status=state.status,  # type: ignore[arg-type]
        version=state.version,
    )
    return reply(created, 201, Location=f"/games/{state.game_id}")


@bp.get("/games")
def list_games() -> Response:
    q = query(ListGamesQuery)
    items, cursor = service().list_games(q.game, q.status, q.limit, q.cursor)
    return reply(GamesPage.model_validate({"items": items, "next_cursor": cursor}))


@bp.get("/games/<game_id>")
def get_game(game_id: str) -> Response:
    text = view_json(service(), game_id, bearer_token())
    return Response(text, status=200, mimetype="application/json")
