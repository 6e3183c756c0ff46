"""``/players``: player keys, the seats bound to them, and the player's live stream.

``POST /players`` makes a player (an id and a secret key, stored hashed;
charged to the address's ``seats`` budget like a seat). A seat taken with
``Authorization: Bearer <player_key>`` is bound to the player
(:func:`bind_seat`, called by the seat view). ``GET /players/me/seats``
lists the bound seats, newest first, with their tokens, so a client that
lost its state gets every game back. ``GET /players/me/events`` is one live
stream over all of them (:mod:`.playerstream`), served by the stream server
in a deployment (its blueprint :data:`stream_bp`).
"""

from __future__ import annotations

from flask import Blueprint, Response, current_app, request

from schemas.api import CreatePlayerRequest, PlayerCreated, PlayerSeats, PlayerStreamQuery
from service.engines import table
from service.games import GameService
from service.hub import Signal
from service.parking.stream import Lines
from service.store import StoreError
from service.store.players import Players

from .errors import ApiError
from .http import bearer_token, body, query, reply, service
from .live import LiveResponse, limit_writes, live_body, process_hub
from .playerstream import PlayerStream
from .streamcaps import StreamSlots

bp = Blueprint("players", __name__)
stream_bp = Blueprint("player_events", __name__)


def players(svc: GameService) -> Players:
    return svc.store.players


def unknown_key() -> ApiError:
    return ApiError(
        401,
        "unauthenticated",
        "Player key required",
        "send Authorization: Bearer <player_key>, the key POST /players answered",
    )


def player_of(svc: GameService, required: bool = True) -> str | None:
    """The player the request's bearer key names; ``None`` without one (when not
    ``required``); a 401 for a key that names no player."""
    key = bearer_token()
    if key is None:
        if required:
            raise unknown_key()
        return None
    player_id = players(svc).player_of(key)
    if player_id is None:
        raise unknown_key()
    return player_id


def bind_seat(svc: GameService, player_id: str, state: table.Table, seat: int, token: str) -> None:
    """Bind the seat just taken to ``player_id``."""
    players(svc).bind(player_id, state.game_id, state.kind, seat, token)


@bp.post("/players")
def create_player() -> Response:
    if request.get_data(cache=True).strip():
        body(CreatePlayerRequest)
    player_id, player_key = players(service()).create()
    return reply(PlayerCreated(player_id=player_id, player_key=player_key), 201)


@bp.get("/players/me/seats")
def my_seats() -> Response:
    svc = service()
    player_id = player_of(svc)
    assert player_id is not None
    found = players(svc)
    seats = []
    listed: set[tuple[str, int]] = set()
    for binding in reversed(found.bindings(player_id)):
        if (binding.game_id, binding.seat) in listed:
            continue  # a retried seat request binds it again
        listed.add((binding.game_id, binding.seat))
        try:
            state = svc.load(binding.game_id)
        except StoreError:
            continue  # the game is no longer kept
        seats.append(
            {
                "game_id": binding.game_id,
                "game": binding.game,
                "seat": binding.seat,
                "token": binding.token(found.cipher),
                "status": state.status,
                "version": state.version,
            }
        )
    return reply(PlayerSeats.model_validate({"player_id": player_id, "seats": seats}))


@stream_bp.get("/players/me/events")
def my_events() -> Response:
    svc = service()
    player_id = player_of(svc)
    assert player_id is not None
    q = query(PlayerStreamQuery)
    cursors = parse_cursors(q.after)
    settings = svc.runtime.settings
    slots: StreamSlots = current_app.extensions["cardroom_streams"]
    address = request.remote_addr or "-"
    slots.acquire_player(address)  # a refused stream changes nothing
    try:
        limit_writes(request.environ, settings.stream_write_timeout_s)
        hub, keepalive_ms = process_hub(svc), max(1, int(settings.stream_keepalive_s * 1000))

        def start(signal: Signal) -> tuple[str, Lines | None]:
            stream = PlayerStream(
                svc,
                hub,
                players(svc),
                player_id,
                cursors,
                signal,
                keepalive_ms=keepalive_ms,
                views=q.views,
                max_games=settings.player_stream_seats,
            )
            return stream.open(), stream

        # its opening now (see service.api.live.Opened)
        response = LiveResponse(live_body(keepalive_ms, settings.stream_write_timeout_s, start))
    except BaseException:
        slots.release_player(address)
        raise
    response.call_on_close(lambda: slots.release_player(address))
    return response


def parse_cursors(after: str | None) -> dict[str, int]:
    """``game_id:version,…`` (its form checked by :class:`PlayerStreamQuery`)."""
    if not after:
        return {}
    cursors: dict[str, int] = {}
    for item in after.split(","):
        game_id, _, version = item.partition(":")
        cursors[game_id] = int(version)
    return cursors
