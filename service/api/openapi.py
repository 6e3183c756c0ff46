"""The OpenAPI 3.1 document, generated from the pydantic models of ``schemas.api``.

Schemas come from the models themselves; the operations are listed once,
below, with every status each one really answers (a test drives the app with
schemathesis against this document and fails on any undocumented status or
body that breaks its schema).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Final, Literal, get_args

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from schemas import api, fairness, stream, views
from service import requestid
from service.idempotency import CLIENT_ID, CLIENT_SECRET, CLIENT_SECRET_PATTERN

from .examples import EXAMPLES, GAME_ID, examples
from .kinds import kinds

REF: Final = "#/components/schemas/{model}"
PROBLEM_TYPE: Final = "application/problem+json"
GAME_ID_PARAM: Final = {
    "name": "game_id",
    "in": "path",
    "required": True,
    "description": "The game's id, as returned by POST /games.",
    "schema": {"type": "string", "pattern": "^[A-Za-z0-9_-]{1,64}$"},
    "example": "Xw3kPq0aZ9bLr2Tm",
}
ERRORS: Final = {
    400: "The body is not valid JSON, or a query parameter is malformed (`field`).",
    401: "A seat token is required (or the Authorization header is malformed).",
    403: "The token opens no seat of this game.",
    404: "No such game.",
    410: "The table expired before every seat was taken (`table-expired`).",
    409: "The game moved on (`current_version` says where it is) or the table refuses.",
    413: "The body is too large.",
    415: "The body is not application/json.",
    422: "The body is wrong (`field`), the move illegal (`rule`) or an option bad (`option`).",
    429: "Too many requests: wait `Retry-After` seconds.",
    503: (
        "Redis does not answer (`store-unavailable`, `unavailable`) or refuses writes "
        "(`store-read-only`, with `reason`): nothing was changed; retry after `Retry-After`."
    ),
}

CLIENT_HEADERS: Final = (
    {
        "name": CLIENT_SECRET,
        "in": "header",
        "required": False,
        "description": (
            "A secret of the client's own, drawn at random and kept private: its SHA-256 "
            "scopes the body's `idempotency_key`, so only a client knowing it can replay "
            "the table a key opened (or collide with its keys). Without it (and without "
            "`Client-Id`) a key is scoped to the client's address."
        ),
        "schema": {"type": "string", "pattern": CLIENT_SECRET_PATTERN},
    },
    {
        "name": CLIENT_ID,
        "in": "header",
        "required": False,
        "deprecated": True,
        "description": (
            f"The older name of `{CLIENT_SECRET}`, still served and taken for a secret the "
            "same way: send a random value, kept private. A value shorter than 16 "
            "characters is no secret and scopes keys to it and the client's address."
        ),
        "schema": {"type": "string"},
    },
)
"""The headers naming whose idempotency keys a creation's key is among."""
REPLAYED: Final = {
    "Idempotent-Replayed": {
        "schema": {"type": "string", "enum": ["true"]},
        "description": "Present when an earlier request with this idempotency key made the answer.",
    }
}
RETRY_AFTER: Final = {
    "Retry-After": {"schema": {"type": "integer"}, "description": "Seconds to wait."}
}

REQUEST_ID: Final = {
    "name": "X-Request-Id",
    "in": "header",
    "required": False,
    "description": f"Your id for this request (1-{requestid.MAX_LENGTH} of letters, digits "
    "and `._:-`, not looking like a secret), kept in the server's logs and echoed back; "
    "absent or refused: the server makes one.",
    "schema": {"type": "string"},
}
REQUEST_ID_ECHO: Final = {
    "X-Request-Id": {
        "schema": {"type": "string"},
        "description": "The request's id: the one sent, or the one the server made.",
    }
}
IF_NONE_MATCH: Final = {
    "name": "If-None-Match",
    "in": "header",
    "required": False,
    "description": "An ETag of an earlier answer: a 304 if it is still this answer.",
    "schema": {"type": "string"},
}
CACHED: Final = {
    "ETag": {
        "schema": {"type": "string"},
        "description": "An ended game's answer only: it never changes.",
    },
    "Cache-Control": {
        "schema": {"type": "string"},
        "description": "`public, max-age=31536000, immutable` for an ended game's answer, "
        "`no-store` otherwise.",
    },
}
Mode = Literal["validation", "serialization"]


@dataclass(frozen=True)
class Op:
    method: str
    path: str
    summary: str
    description: str
    tag: str
    ok: int
    response: type[BaseModel] | str | None
    """The answer's model, or the name of one of :func:`unions`."""
    errors: tuple[int, ...]
    request: type[BaseModel] | None = None
    query: type[BaseModel] | None = None
    auth: Literal["none", "optional", "required"] = "none"
    extra_content: dict[str, Any] = field(default_factory=dict)
    headers: tuple[dict[str, Any], ...] = ()
    """Request headers the operation reads, as OpenAPI parameters."""
    notes: dict[int, str] = field(default_factory=dict)
    """What an error status means here, where it is not :data:`ERRORS`' general sense."""
    ok_headers: dict[str, Any] = field(default_factory=dict)
    retry_after: tuple[int, ...] = ()
    """Error statuses besides 429 that come with ``Retry-After``."""
    example: Any = None
    """The request body's example, or the name of one of :func:`.examples.examples`."""
    ok_example: Any = None
    """The answer's example (or its name in :func:`.examples.examples`)."""
    cached: bool = False
    """An ended game's answer, served with an ``ETag``: ``If-None-Match`` may get a 304."""


OPS: Final = (
    Op(
        "post",
        "/games",
        "Open a table",
        "Creates a game; its first event carries the commitment to the server seed. With an "
        "`idempotency_key` the request is retry-safe: the same body sent again with the same "
        "key (and the same `Client-Secret`) opens no second table and answers with the first "
        "(`Idempotent-Replayed: true`); the key with another body is a 422 "
        "`idempotency-key-reused`; a repeat sent while the first is still being handled "
        "waits up to a second for it, then is a 409 `idempotency-key-in-use`.",
        "games",
        201,
        api.GameCreated,
        (400, 409, 413, 415, 422, 429, 503),
        request=api.CreateGameRequest,
        headers=CLIENT_HEADERS,
        notes={
            409: "`idempotency-key-in-use`: the first request with this key is still being "
            "handled; send it again after `Retry-After` seconds.",
            422: "The body is wrong (`field`), an option bad (`option`), the key reused with "
            "another body (`idempotency-key-reused`) or the `Client-Secret` header malformed "
            "(`bad-client-secret`).",
        },
        ok_headers={
            "Location": {"schema": {"type": "string"}, "description": "The new game's path."},
            **REPLAYED,
        },
        retry_after=(409,),
        example="create",
        ok_example="created",
    ),
    Op(
        "get",
        "/games",
        "List games",
        "Newest first, paged with `cursor`; filter by game and status.",
        "games",
        200,
        api.GamesPage,
        (400, 422, 429),
        query=api.ListGamesQuery,
        ok_example={
            "items": [
                {
                    "game_id": "Xw3kPq0aZ9bLr2Tm",
                    "game": "murlan",
                    "status": "playing",
                    "created_at": 1764763200000,
                    "last_event_at": 1764763208500,
                }
            ],
            "next_cursor": "1764763200000:Xw3kPq0aZ9bLr2Tm",
        },
    ),
    Op(
        "get",
        "/games/kinds",
        "The games",
        "Every game's seats, move actions and table options with their defaults, and its "
        "cards: how they are written and how they rank (`cards.rank_order`, lowest first).",
        "games",
        200,
        api.GameKinds,
        (429,),
    ),
    Op(
        "get",
        "/games/{game_id}",
        "Look at a game",
        "The public view; with a seat token the seat's view with `hand`, `legal_moves`.",
        "games",
        200,
        "GameView",
        (401, 403, 404, 410, 429),
        auth="optional",
        ok_example="view",
    ),
    Op(
        "post",
        "/games/{game_id}/seats",
        "Take a seat",
        "The seat's token is in this answer only. Taking the last seat deals the first hand.",
        "seats",
        201,
        api.SeatGranted,
        (400, 401, 404, 409, 410, 413, 415, 422, 429, 503),
        request=api.TakeSeatRequest,
        example="seat",
        ok_example="seated",
        notes={
            401: "`Authorization: Bearer <player_key>` (it binds the seat to the player) "
            "whose key names no player, or a malformed header; no seat is taken."
        },
    ),
    Op(
        "post",
        "/games/{game_id}/moves",
        "Make a move",
        "Checked by the engine and appended atomically; a rejected move changes nothing.",
        "moves",
        201,
        "MoveAccepted",
        (400, 401, 403, 404, 409, 410, 413, 415, 422, 429, 503),
        request=api.MoveRequest,
        auth="required",
        example="move",
        ok_example="moved",
        ok_headers=dict(REPLAYED),
    ),
    Op(
        "get",
        "/games/{game_id}/events",
        "Read the events",
        "The events this viewer may see, paged by version. With `Accept: application/x-ndjson` "
        "a live stream of `StreamLine`s (use `after` to resume; `views=true` adds the "
        "viewer's view after each batch). Open streams are capped per address, per seat, per "
        "game's spectators and per server (a share of it kept for seats): one more is a 429 "
        "`too-many-streams` with `fallback: poll` and `poll_after_s` (read `GET /games/{id}` "
        "that often meanwhile; try the stream again after `Retry-After`). A page (or a stream's "
        "catch-up after `after`) of 100 events or more is charged to the address's `reads` "
        "budget: one read per 100 events, or one for a page of an ended game, which is "
        "served from its kept events with an `ETag` and is immutable.",
        "events",
        200,
        "EventsPage",
        (400, 401, 403, 404, 410, 422, 429),
        query=api.EventsQuery,
        auth="optional",
        ok_example="events",
        cached=True,
    ),
    Op(
        "get",
        "/games/{game_id}/replay",
        "The replay document",
        "`cardroom-replay-v1`: complete once the game has ended, redacted for the viewer before.",
        "replays",
        200,
        api.Replay,
        (401, 403, 404, 410, 429),
        auth="optional",
        ok_example={
            "format": "cardroom-replay-v1",
            "game_id": "Xw3kPq0aZ9bLr2Tm",
            "game": "murlan",
            "options": {"straight_beats": "one_higher", "exchange_min_rank": 4},
            "seats": [{"seat": 0, "name": "Drita", "client_seed": "a1b2", "bot": False}],
            "commitment": "9c1e…",
            "server_seed": None,
            "deals": [],
            "events": [{"version": 1, "type": "GameCreated", "schema_version": 1}],
            "result": {"scores": [0, 0, 0, 0], "target": 31},
        },
        cached=True,
    ),
    Op(
        "get",
        "/games/{game_id}/verify",
        "Verify the shuffle",
        "Re-derives every deal from the commitment and seeds once the seed is revealed.",
        "replays",
        200,
        api.Verification,
        (404, 410, 429),
        ok_example={
            "game_id": "Xw3kPq0aZ9bLr2Tm",
            "verified": True,
            "status": "ended",
            "commitment": "9c1e…",
            "code": "verified",
            "params": {"deals": 3, "moves": 212},
            "seeds_committed": True,
        },
        cached=True,
    ),
    Op(
        "post",
        "/games/{game_id}/rematch",
        "Ask for a rematch",
        "Once the game has ended, this seat asks to play it again: the same game, options "
        "and seats (`409 game-not-over` before the end). Seats played by bots always agree. "
        "The request that completes the confirmations opens the next game and seats everyone "
        "in the old order (bots as bots, each person under the same name); from then on the "
        "answer's `next` gives this seat its place there: the next game's id, its seat and "
        "its token (given only to this seat's own token, never stored: derived again on each "
        "ask). Asking again changes nothing.",
        "games",
        200,
        api.Rematch,
        (401, 403, 404, 409, 410, 429, 503),
        auth="required",
    ),
    Op(
        "get",
        "/games/{game_id}/rematch",
        "Where the rematch stands",
        "The seats that asked for a rematch of this ended game (bots included), those still "
        "to ask, and, once the next game is open, this seat's place there (`next`).",
        "games",
        200,
        api.Rematch,
        (401, 403, 404, 410, 429, 503),
        auth="required",
    ),
    Op(
        "post",
        "/games/{game_id}/messages",
        "Say a preset message",
        "The seat says one of the preset messages (`code`: no free text, so nothing to "
        "moderate), heard by everyone at the table on the live stream as a `message` line. "
        "A seat says at most one message every 3 seconds (`429 rate-limited` with "
        "`Retry-After` before that).",
        "games",
        201,
        api.TableMessage,
        (400, 401, 403, 404, 410, 413, 415, 422, 429, 503),
        request=api.SayRequest,
        auth="required",
    ),
    Op(
        "get",
        "/games/{game_id}/messages",
        "The latest table messages",
        "The latest preset messages said at the table (up to 50, kept a day), oldest first; "
        "with `after`, only those said after that message, so that a client reading now and "
        "then (a table polling without its live stream) gets each message once.",
        "games",
        200,
        api.MessagesPage,
        (400, 404, 410, 422, 429, 503),
        query=api.MessagesQuery,
        ok_example={
            "items": [
                {"id": "1764770000000-0", "seat": 1, "code": "good_luck", "at": 1764770000000}
            ]
        },
    ),
    Op(
        "post",
        "/games/{game_id}/webhooks",
        "Subscribe a webhook",
        "Asks cardroom to POST this seat's events (`turn_started`, `hand_ended`, `game_ended`, "
        "`seat_away`) to `url`, signed with the `secret` in this answer only (see "
        "docs/webhooks.md). The URL must be https to a public address, checked after DNS "
        "resolution (`422 webhook-url-refused` naming the `reason`); a seat and a game have "
        "a budget of subscriptions (`409 too-many-webhooks`); an ended game takes none "
        "(`409 webhooks-closed`).",
        "webhooks",
        201,
        api.Webhook,
        (400, 401, 403, 404, 409, 410, 413, 415, 422, 429, 503),
        request=api.CreateWebhookRequest,
        auth="required",
    ),
    Op(
        "get",
        "/games/{game_id}/webhooks",
        "The seat's webhooks",
        "This seat's subscriptions, without their secrets; a paused one says why (`paused`).",
        "webhooks",
        200,
        api.WebhookList,
        (401, 403, 404, 410, 429, 503),
        auth="required",
    ),
    Op(
        "delete",
        "/games/{game_id}/webhooks/{hook_id}",
        "Delete a webhook",
        "Ends one of this seat's subscriptions; its queued deliveries are dropped.",
        "webhooks",
        204,
        None,
        (401, 403, 404, 410, 429, 503),
        auth="required",
    ),
    Op(
        "post",
        "/games/{game_id}/webhooks/{hook_id}/rotate",
        "Rotate a webhook's secret",
        "A new signing secret, in this answer only; the old one signs nothing more.",
        "webhooks",
        200,
        api.Webhook,
        (401, 403, 404, 410, 429, 503),
        auth="required",
    ),
    Op(
        "get",
        "/games/{game_id}/webhooks/{hook_id}/deliveries",
        "A webhook's delivery log",
        "The subscription's deliveries, newest first: status, and each attempt's HTTP status, "
        "time taken and the first bytes of the reply.",
        "webhooks",
        200,
        api.DeliveryList,
        (401, 403, 404, 410, 429, 503),
        auth="required",
    ),
    Op(
        "post",
        "/games/{game_id}/webhooks/{hook_id}/deliveries/{delivery_id}/redeliver",
        "Redeliver",
        "Sends a delivery again now, with the same `Cardroom-Delivery` id and body, and "
        "resumes its subscription if it was paused.",
        "webhooks",
        202,
        api.Delivery,
        (401, 403, 404, 410, 429, 503),
        auth="required",
    ),
    Op(
        "get",
        "/fairness/report",
        "The fairness report",
        "Every feature of the finished games' deals (jokers, trumps, troys...) per seat, per "
        "position from the dealer and per player, against its exact expected distribution: "
        "chi-square p-values, Benjamini-Hochberg adjusted, differences with 95% intervals. "
        "Hands count once their game has ended and its seed is public.",
        "fairness",
        200,
        fairness.FairnessReport,
        (400, 422, 429),
        query=fairness.FairnessQuery,
    ),
    Op(
        "post",
        "/players",
        "Make a player",
        "An empty body or `{}`. The `player_key` is in this answer only (the server keeps its "
        "hash): a seat taken with `Authorization: Bearer <player_key>` is bound to the player.",
        "players",
        201,
        api.PlayerCreated,
        (413, 415, 422, 429),
    ),
    Op(
        "get",
        "/players/me/seats",
        "The player's seats",
        "Every seat bound to the player key, newest first, with its token, the game's status "
        "and version (ended games while they are kept).",
        "players",
        200,
        api.PlayerSeats,
        (401, 429),
        auth="required",
    ),
    Op(
        "get",
        "/players/me/events",
        "The player's live stream",
        "One NDJSON stream over every game of the player's bound seats, seats bound later "
        "included: each game's stream lines with `game_id` added, and a `seat` line when a "
        "seat joins. `after`: `game_id:version` cursors, one per game already seen. Counts "
        "as one stream against the address's and the server's caps (429 `too-many-streams`).",
        "players",
        200,
        None,
        (400, 401, 422, 429),
        query=api.PlayerStreamQuery,
        auth="required",
    ),
    Op(
        "get",
        "/healthz",
        "Health",
        "Answers 200 when Redis answers (reads can be served), else 503.",
        "meta",
        200,
        api.Health,
        (503,),
    ),
    Op(
        "get",
        "/readyz",
        "Readiness",
        "Answers 200 when Redis answers, takes writes and holds the service's Lua scripts "
        "and, for the API, a worker's heartbeat is at most "
        "CARDROOM_WORKER_HEARTBEAT_MAX_AGE_S old. Else 503 naming the failed `check` "
        "(`redis`, `writes`, `scripts`, `workers`): `store-read-only` (with `reason` and "
        "`Retry-After`) while Redis refuses writes (maxmemory, failing persistence, a "
        "replica), `unavailable` otherwise.",
        "meta",
        200,
        api.Ready,
        (503,),
    ),
    Op(
        "get",
        "/livez",
        "Liveness",
        "Answers 200 whenever the process answers; asks Redis nothing.",
        "meta",
        200,
        api.Live,
        (),
    ),
)


def _tag(model: type[BaseModel], prop: str) -> str:
    value: str = get_args(model.model_fields[prop].annotation)[0]
    return value


def _union(prop: str, members: tuple[type[BaseModel], ...] | list[type[BaseModel]]) -> Any:
    return {
        "oneOf": [{"$ref": REF.format(model=m.__name__)} for m in members],
        "discriminator": {
            "propertyName": prop,
            "mapping": {_tag(m, prop): REF.format(model=m.__name__) for m in members},
        },
    }


def unions() -> dict[str, Any]:
    """The named unions of the document: the view and its table by ``game``, each
    game's events by ``type``, the answers holding events by ``game``, the live
    stream's lines by ``kind`` (its ``event`` lines by ``game``)."""
    named: dict[str, Any] = {
        "GameView": _union("game", views.VIEW_MODELS),
        "TableView": _union("game", views.TABLE_MODELS),
    }
    for game in ("hazari", "azi", "murlan"):
        named[game.capitalize() + "Event"] = _union("type", stream.event_union_models(game))
    for name, members in stream.PER_GAME.items():
        named[name] = _union("game", members)
    named["StreamLine"] = {
        "description": "One line of the live stream (NDJSON): `view` first, then `event`s, "
        "`message`s and `keepalive`s, and `end` once the game has ended. Told apart by "
        "`kind`; an `event` line's event by its `game` (`EventLine`), then by the event's "
        "`type`. A client skips a `kind` it does not know (a newer server's).",
        "oneOf": [
            {"$ref": REF.format(model=n)}
            for n in ("ViewLine", "EventLine", "KeepaliveLine", "EndLine", "MessageLine")
        ],
    }
    named["PlayerStreamLine"] = {
        "description": "One line of the player's stream (NDJSON): each bound game's "
        "`view`, `event` and `end` lines with its `game_id`, a `seat` line when a seat "
        "joins, and `keepalive`s. Told apart by `kind`, as `StreamLine`.",
        "oneOf": [
            {"$ref": REF.format(model=n)}
            for n in ("ViewLine", "EventLine", "KeepaliveLine", "EndLine", "SeatLine")
        ],
    }
    return named


def _members() -> list[type[BaseModel]]:
    out: list[type[BaseModel]] = [*views.VIEW_MODELS, *views.TABLE_MODELS, *stream.LINE_MODELS]
    for game in ("hazari", "azi", "murlan"):
        out.extend(stream.event_union_models(game))
    for members in stream.PER_GAME.values():
        out.extend(members)
    return out


def _no_defaults(schema: dict[str, Any]) -> dict[str, Any]:
    """A model's schema without ``default``s: generators take a field with one
    for a field always present (openapi-typescript makes it required), though an
    absent optional field means the same."""
    for prop in schema.get("properties", {}).values():
        prop.pop("default", None)
    return schema


@cache
def _components() -> dict[str, Any]:
    models: list[tuple[type[BaseModel], Mode]] = [(api.Problem, "serialization")]
    requests: set[str] = set()
    for op in OPS:
        if op.request is not None:
            models.append((op.request, "validation"))
            requests.add(op.request.__name__)
        if isinstance(op.response, type):
            models.append((op.response, "serialization"))
    models.extend((m, "serialization") for m in _members())
    _, schema = models_json_schema(models, ref_template=REF)
    defs: dict[str, Any] = schema.get("$defs", {})
    for name, model_schema in defs.items():
        _no_defaults(model_schema)
        if name in requests:
            continue
        if "properties" in model_schema and model_schema.get("additionalProperties") is True:
            del model_schema["additionalProperties"]  # new fields may appear: clients ignore them
    defs.update(unions())
    return defs


def _content(model: type[BaseModel] | str, media: str = "application/json") -> dict[str, Any]:
    name = model if isinstance(model, str) else model.__name__
    return {media: {"schema": {"$ref": REF.format(model=name)}}}


def _params(op: Op) -> list[dict[str, Any]]:
    params: list[dict[str, Any]] = []
    if "{game_id}" in op.path:
        params.append(GAME_ID_PARAM)
    for name, what in (("hook_id", "webhook"), ("delivery_id", "delivery")):
        if "{" + name + "}" in op.path:
            params.append(
                {
                    "name": name,
                    "in": "path",
                    "required": True,
                    "description": f"The {what}'s id, as its subscription's answers give it.",
                    "schema": {"type": "string", "pattern": "^[A-Za-z0-9._-]{1,128}$"},
                    "example": "wh_5Jq1xYtA" if name == "hook_id" else "dl_8c2Fq0",
                }
            )
    params.extend(op.headers)
    params.append(REQUEST_ID)
    if op.cached:
        params.append(IF_NONE_MATCH)
    if op.query is not None:
        props = op.query.model_json_schema()["properties"]
        for name, prop in props.items():
            prop = {k: v for k, v in prop.items() if k != "title"}
            params.append({"name": name, "in": "query", "required": False, "schema": prop})
    return params


def _example(value: Any) -> Any:
    return examples()[value] if isinstance(value, str) else value


def _operation(op: Op) -> dict[str, Any]:
    request_example, ok_example = EXAMPLES.get((op.method, op.path), (op.example, op.ok_example))
    if op.response is api.GameKinds:
        ok_example = kinds().model_dump(mode="json")
    ok: dict[str, Any] = {"description": "No content" if op.ok == 204 else "OK"}
    if op.response is not None:
        ok["content"] = _content(op.response)
        if ok_example is not None:
            ok["content"]["application/json"]["example"] = _example(ok_example)
    ok["headers"] = {**op.ok_headers, **REQUEST_ID_ECHO, **(CACHED if op.cached else {})}
    if op.path.endswith("/events"):
        player = op.path.startswith("/players/")
        model = "PlayerStreamLine" if player else "StreamLine"
        lines = examples()["stream"]
        if player:  # each game's line says which game it is about, a keep-alive none
            lines = [
                ln if ln["kind"] == "keepalive" else {**ln, "game_id": GAME_ID} for ln in lines
            ]
        ok.setdefault("content", {})["application/x-ndjson"] = {
            "schema": {"$ref": REF.format(model=model)},
            "itemSchema": {"$ref": REF.format(model=model)},
            "example": "".join(json.dumps(line) + "\n" for line in lines),
        }
    responses: dict[str, Any] = {str(op.ok): ok}
    if op.cached:
        responses["304"] = {
            "description": "Not modified: `If-None-Match` named this very answer.",
            "headers": {**CACHED, **REQUEST_ID_ECHO},
        }
    for status in op.errors:
        responses[str(status)] = {
            "description": op.notes.get(status, ERRORS[status]),
            "content": _content(api.Problem, PROBLEM_TYPE),
            "headers": dict(REQUEST_ID_ECHO),
        }
        if status in (429, 503) or status in op.retry_after:
            responses[str(status)]["headers"].update(RETRY_AFTER)
    out: dict[str, Any] = {
        "operationId": op.method
        + "_"
        + re.sub(r"[^a-z_]+", "", op.path.replace("/", "_")).strip("_"),
        "summary": op.summary,
        "description": op.description,
        "tags": [op.tag],
        "parameters": _params(op),
        "responses": responses,
    }
    if op.request is not None:
        out["requestBody"] = {"required": True, "content": _content(op.request)}
        if request_example is not None:
            body = out["requestBody"]["content"]["application/json"]
            body["example"] = _example(request_example)
    if op.auth == "required":
        out["security"] = [{"seatToken": []}]
    elif op.auth == "optional":
        out["security"] = [{}, {"seatToken": []}]
    else:
        out["security"] = []
    return out


@cache
def spec() -> dict[str, Any]:
    paths: dict[str, Any] = {}
    for op in OPS:
        paths.setdefault(op.path, {})[op.method] = _operation(op)
    paths["/openapi.json"] = {
        "get": {
            "operationId": "get_openapi",
            "summary": "This document",
            "tags": ["meta"],
            "security": [],
            "responses": {
                "200": {
                    "description": "OpenAPI 3.1",
                    "content": {
                        "application/json": {
                            "example": {"openapi": "3.1.0", "info": {"title": "cardroom"}}
                        }
                    },
                }
            },
        }
    }
    paths["/docs"] = {
        "get": {
            "operationId": "get_docs",
            "summary": "This document as a page for people",
            "tags": ["meta"],
            "security": [],
            "responses": {
                "200": {
                    "description": "HTML",
                    "content": {"text/html": {"example": "<!doctype html><title>cardroom API"}},
                }
            },
        }
    }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "cardroom",
            "version": "1",
            "description": (
                "Hazari Lite, Azi and Murlan at remote tables: every move an event, every "
                "shuffle verifiable. Errors are application/problem+json."
            ),
        },
        "paths": paths,
        "components": {
            "schemas": _components(),
            "securitySchemes": {
                "seatToken": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "The token POST /games/{game_id}/seats returned for your seat.",
                }
            },
        },
    }
