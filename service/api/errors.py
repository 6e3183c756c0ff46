"""The one error handler: every failure becomes ``application/problem+json``.

Engines, the store and the service raise narrow errors that say what went
wrong; this module alone decides their HTTP status and writes the problem
document (RFC 9457: ``type``, ``title``, ``status``, ``detail`` plus an
extension naming the ``rule``, ``option`` or ``field`` at fault). Anything
it does not recognise is a bug: it is logged with its traceback and the
client gets a generic 500 that reveals nothing of the internals.
"""

from __future__ import annotations

import json
import logging
from typing import Any, Final

import redis
from flask import Flask, Response, current_app, request
from pydantic import ValidationError
from werkzeug.exceptions import HTTPException, MethodNotAllowed

from schemas.moves import BodyError, body_error
from service.budgets import RateLimited
from service.engines.base import OptionError, RuleError
from service.engines.cards import CardError
from service.engines.game import TableError
from service.engines.shuffle import SeedError
from service.games import Forbidden, Unauthenticated
from service.idempotency import (
    CLIENT_SECRET,
    BadClientSecret,
    IdempotencyKeyInUse,
    IdempotencyKeyReused,
)
from service.store.errors import BadGameId, GameNotFound, NotReplicated, VersionConflict
from service.store.index import BadCursor
from service.store.refusals import RETRY_AFTER_S, Reason, refusal_reason
from service.writestate import accepted, current, refused

from .streamcaps import TooManyStreams

log = logging.getLogger("cardroom.api")

PROBLEM: Final = "application/problem+json"
TYPE_BASE: Final = "https://cardroom.dev/problems/"
TABLE_CONFLICTS: Final = frozenset({"table_full", "game_over"})
"""Table refusals that are about the table's state (409), not the request (422)."""


class ApiError(Exception):
    """An error the HTTP layer itself raises (bad JSON, wrong media type…)."""

    def __init__(self, status: int, slug: str, title: str, detail: str, **extra: Any) -> None:
        self.status = status
        self.slug = slug
        self.title = title
        self.detail = detail
        self.extra = extra
        super().__init__(detail)


def problem(
    status: int,
    slug: str,
    title: str,
    detail: str,
    headers: dict[str, str] | None = None,
    **extra: Any,
) -> Response:
    body = {"type": TYPE_BASE + slug, "title": title, "status": status, "detail": detail}
    body.update({k: v for k, v in extra.items() if v is not None})
    return Response(json.dumps(body), status=status, mimetype=PROBLEM, headers=headers)


def handle(exc: Exception) -> Response:
    """Turn ``exc`` into its problem response (registered for every exception)."""
    if isinstance(exc, ApiError):
        return problem(exc.status, exc.slug, exc.title, exc.detail, **exc.extra)
    if isinstance(exc, RateLimited):
        return problem(
            429,
            "rate-limited",
            "Too many requests",
            str(exc),
            headers={"Retry-After": str(exc.retry_after_s)},
            budget=exc.budget,
        )
    if isinstance(exc, TooManyStreams):
        return problem(
            429,
            "too-many-streams",
            "Too many live streams",
            str(exc),
            headers={"Retry-After": str(exc.retry_after_s)},
            limit=exc.limit,
            scope=exc.scope,
            fallback="poll",
            poll_after_s=exc.poll_after_s,
            retry_after_s=exc.retry_after_s,
        )
    if isinstance(exc, HTTPException):
        return _http(exc)
    if isinstance(exc, ValidationError):
        exc = body_error(exc)
    if isinstance(exc, BodyError):
        return problem(422, "invalid-body", "Invalid request", str(exc), field=exc.field)
    if isinstance(exc, Unauthenticated):
        return problem(
            401,
            "unauthenticated",
            "Seat token required",
            "send the seat token you got when taking the seat as 'Authorization: Bearer <token>'",
            headers={"WWW-Authenticate": 'Bearer realm="cardroom"'},
        )
    if isinstance(exc, Forbidden):
        return problem(
            403, "forbidden", "Token not accepted", "this token opens no seat of this game"
        )
    if isinstance(exc, GameNotFound) and _expired(exc.game_id):
        return problem(
            410,
            "table-expired",
            "Table expired",
            f"the table {exc.game_id!r} expired before every seat was taken; open a new one",
        )
    if isinstance(exc, GameNotFound | BadGameId):
        return problem(404, "game-not-found", "No such game", f"no game {exc.game_id!r}")
    if isinstance(exc, VersionConflict):
        return problem(
            409,
            "stale-version",
            "The game moved on",
            f"expected version {exc.expected} but the game is at version {exc.actual}; "
            "reload the game and decide again",
            current_version=exc.actual,
        )
    if isinstance(exc, TableError) and exc.rule in TABLE_CONFLICTS:
        return problem(
            409, exc.rule.replace("_", "-"), "Refused by the table", str(exc), rule=exc.rule
        )
    if isinstance(exc, RuleError):
        return problem(422, "illegal-move", "Illegal move", str(exc), rule=exc.rule)
    if isinstance(exc, OptionError):
        return problem(422, "bad-option", "Bad table option", str(exc), option=exc.option)
    if isinstance(exc, SeedError):
        return problem(422, "bad-client-seed", "Bad client seed", str(exc), field="client_seed")
    if isinstance(exc, CardError):
        return problem(422, "illegal-move", "Illegal move", str(exc), rule="bad_card")
    if isinstance(exc, IdempotencyKeyReused):
        return problem(
            422,
            "idempotency-key-reused",
            "Idempotency key reused",
            str(exc),
            field="idempotency_key",
        )
    if isinstance(exc, IdempotencyKeyInUse):
        return problem(
            409,
            "idempotency-key-in-use",
            "Idempotency key in use",
            str(exc),
            headers={"Retry-After": str(exc.retry_after_s)},
            field="idempotency_key",
        )
    if isinstance(exc, BadClientSecret):
        return problem(422, "bad-client-secret", "Bad client secret", str(exc), field=CLIENT_SECRET)
    if isinstance(exc, BadCursor):
        return problem(422, "invalid-body", "Invalid request", str(exc), field="cursor")
    if isinstance(
        exc,
        NotReplicated
        | redis.exceptions.ConnectionError
        | redis.exceptions.TimeoutError
        | redis.exceptions.ClusterError,
    ):
        # The store is unreachable or failing over: nothing was acknowledged; try again.
        log.warning("store unavailable: %s", type(exc).__name__)
        return problem(
            503,
            "store-unavailable",
            "Store unavailable",
            "the event store is unavailable for a moment; retry the request "
            "(with the same idempotency_key) after the Retry-After seconds",
            headers={"Retry-After": "1"},
        )
    reason = refusal_reason(exc)
    if reason is not None:
        return writes_refused(reason)
    log.error("unhandled %s", type(exc).__name__, exc_info=exc)
    return problem(
        500,
        "internal",
        "Internal error",
        "the server failed to handle this request; it has been logged",
    )


def writes_refused(reason: Reason) -> Response:
    """503 ``store-read-only``: Redis refuses writes (full, failing to persist, or a
    replica) and still serves reads. Nothing was written; the same request may be
    sent again after ``Retry-After``. Counted and, once per change, logged."""
    refused(reason)
    return problem(
        503,
        "store-read-only",
        "Store not taking writes",
        "the event store is refusing writes for now (reads still work); nothing was "
        "changed: retry the request (with the same idempotency_key) after the "
        "Retry-After seconds",
        headers={"Retry-After": str(RETRY_AFTER_S[reason])},
        reason=reason,
    )


def _http(exc: HTTPException) -> Response:
    status = exc.code or 500
    if status >= 500:
        log.error("HTTP %s", status, exc_info=exc)
        return problem(status, "internal", "Internal error", "the server failed this request")
    headers: dict[str, str] = {}
    if isinstance(exc, MethodNotAllowed) and exc.valid_methods:
        headers["Allow"] = ", ".join(sorted(exc.valid_methods))
    details = {
        404: "no such resource; see /docs for the endpoints",
        405: "this method is not allowed here",
        413: f"the body is larger than {current_app.config.get('MAX_CONTENT_LENGTH')} bytes",
    }
    detail = details.get(status) or (exc.description or exc.name)
    slug = exc.name.lower().replace(" ", "-")
    return problem(status, slug, exc.name, detail, headers=headers or None)


def _expired(game_id: str) -> bool:
    """Whether ``game_id`` is a table the retention pass expired (recently)."""
    try:
        return bool(current_app.extensions["cardroom"].store.removal.was_expired(game_id))
    except Exception:  # a bad id, or Redis gone: then it is simply not found
        return False


def register(app: Flask) -> None:
    app.register_error_handler(Exception, handle)

    @app.after_request
    def writes_back(response: Response) -> Response:
        """A write that went through after refusals: the store takes writes again."""
        if (
            current() is not None
            and request.method == "POST"
            and response.status_code in (200, 201)
            and "Idempotent-Replayed" not in response.headers
        ):
            accepted()
        return response
