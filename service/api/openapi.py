"""The OpenAPI 3.1 document, generated from the pydantic models of ``schemas.api``.

Schemas come from the models themselves; the operations are listed once,
below, with every status each one really answers (a test drives the app with
schemathesis against this document and fails on any undocumented status or
body that breaks its schema).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Final, Literal

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from schemas import api, fairness
from service.idempotency import CLIENT_ID, CLIENT_SECRET, CLIENT_SECRET_PATTERN

REF: Final = "#/components/schemas/{model}"
PROBLEM_TYPE: Final = "application/problem+json"
GAME_ID_PARAM: Final = {
    "name": "game_id",
    "in": "path",
    "required": True,
    "description": "The game's id, as returned by POST /games.",
    "schema": {"type": "string", "pattern": "^[A-Za-z0-9_-]{1,64}$"},
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

Mode = Literal["validation", "serialization"]


@dataclass(frozen=True)
class Op:
    method: str
    path: str
    summary: str
    description: str
    tag: str
    ok: int
    response: type[BaseModel] | None
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
    ),
    Op(
        "get",
        "/games/{game_id}",
        "Look at a game",
        "The public view; with a seat token the seat's view with `hand`, `legal_moves`.",
        "games",
        200,
        api.GameView,
        (401, 403, 404, 410, 429),
        auth="optional",
    ),
    Op(
        "post",
        "/games/{game_id}/seats",
        "Take a seat",
        "The seat's token is in this answer only. Taking the last seat deals the first hand.",
        "seats",
        201,
        api.SeatGranted,
        (400, 404, 409, 410, 413, 415, 422, 429, 503),
        request=api.TakeSeatRequest,
    ),
    Op(
        "post",
        "/games/{game_id}/moves",
        "Make a move",
        "Checked by the engine and appended atomically; a rejected move changes nothing.",
        "moves",
        201,
        api.MoveAccepted,
        (400, 401, 403, 404, 409, 410, 413, 415, 422, 429, 503),
        request=api.MoveRequest,
        auth="required",
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
        api.EventsPage,
        (400, 401, 403, 404, 410, 422, 429),
        query=api.EventsQuery,
        auth="optional",
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


@cache
def _components() -> dict[str, Any]:
    models: list[tuple[type[BaseModel], Mode]] = [(api.Problem, "serialization")]
    for op in OPS:
        if op.request is not None:
            models.append((op.request, "validation"))
        if op.response is not None:
            models.append((op.response, "serialization"))
    models.append((api.StreamLine, "serialization"))
    _, schema = models_json_schema(models, ref_template=REF)
    defs: dict[str, Any] = schema.get("$defs", {})
    return defs


def _content(model: type[BaseModel], media: str = "application/json") -> dict[str, Any]:
    return {media: {"schema": {"$ref": REF.format(model=model.__name__)}}}


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
                }
            )
    params.extend(op.headers)
    if op.query is not None:
        props = op.query.model_json_schema()["properties"]
        for name, prop in props.items():
            prop = {k: v for k, v in prop.items() if k != "title"}
            params.append({"name": name, "in": "query", "required": False, "schema": prop})
    return params


def _operation(op: Op) -> dict[str, Any]:
    ok: dict[str, Any] = {"description": "No content" if op.ok == 204 else "OK"}
    if op.response is not None:
        ok["content"] = _content(op.response)
    if op.ok_headers:
        ok["headers"] = op.ok_headers
    if op.path.endswith("/events"):
        ok["content"]["application/x-ndjson"] = {"schema": {"$ref": REF.format(model="StreamLine")}}
    responses: dict[str, Any] = {str(op.ok): ok}
    for status in op.errors:
        responses[str(status)] = {
            "description": op.notes.get(status, ERRORS[status]),
            "content": _content(api.Problem, PROBLEM_TYPE),
        }
        if status in (429, 503) or status in op.retry_after:
            responses[str(status)]["headers"] = RETRY_AFTER
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
                "200": {"description": "OpenAPI 3.1", "content": {"application/json": {}}}
            },
        }
    }
    paths["/docs"] = {
        "get": {
            "operationId": "get_docs",
            "summary": "This document as a page for people",
            "tags": ["meta"],
            "security": [],
            "responses": {"200": {"description": "HTML", "content": {"text/html": {}}}},
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
