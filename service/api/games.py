"""``/games``: open a table, list tables, look at one."""

from __future__ import annotations

from flask import Blueprint, Response, request

from schemas.api import CreateGameRequest, GameCreated, GamesPage, ListGamesQuery

from .http import bearer_token, body, query, reply, service
from .views import view_json

bp = Blueprint("games", __name__)


@bp.post("/games")
def create_game() -> Response:
    req = body(CreateGameRequest)
    svc = service()
    state = svc.create_game(req.game, req.options, req.seats)
    replayed = False
    if req.idempotency_key is not None:
        kept = svc.keep_creation(client_scope(), req.idempotency_key, state.game_id)
        if kept != state.game_id:  # an earlier request with this key opened the table
            state, replayed = svc.load(kept), True
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
    headers = {"Idempotent-Replayed": "true"} if replayed else {}
    return reply(created, 201, Location=f"/games/{state.game_id}", **headers)


def client_scope() -> str:
    """Whose idempotency keys a creation's key is among: the ``Client-Id``
    header a client sends, else its address (as the rate limiter sees it)."""
    client_id = request.headers.get("Client-Id", "").strip()
    if client_id:
        return "id:" + client_id[:128]
    return "addr:" + (request.remote_addr or "")


@bp.get("/games")
def list_games() -> Response:
    q = query(ListGamesQuery)
    items, cursor = service().list_games(q.game, q.status, q.limit, q.cursor)
    return reply(GamesPage.model_validate({"items": items, "next_cursor": cursor}))


@bp.get("/games/<game_id>")
def get_game(game_id: str) -> Response:
    text = view_json(service(), game_id, bearer_token())
    return Response(text, status=200, mimetype="application/json")
