"""The one error handler: every failure becomes ``application/problem+json``.

Engines, the store and the service raise narrow errors that say what went
wrong; this module alone decides their HTTP status and writes the problem
document (RFC 9457: ``type``, ``title``, ``status``, ``detail`` plus an
extension naming the ``rule``, ``option`` or ``field`` at fault). One
table, :data:`PROBLEMS`, maps each error type to its problem; an error
takes the problem of its nearest mapped base. Anything it does not
recognise is a bug: it is logged with its traceback and the client gets a
generic 500 that reveals nothing of the internals.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from typing import Any, Final

import redis
from flask import Flask, Response, current_app, request
from pydantic import ValidationError
from werkzeug.exceptions import HTTPException, MethodNotAllowed

from schemas.moves import BodyError, body_error
from service import requestid
from service.engines.base import OPTION_CODES, OptionError, RuleError
from service.engines.cards import CardError
from service.engines.shuffle import SeedError
from service.engines.table import TableError
from service.errors import (
    BadClientSecret,
    Forbidden,
    GameNotOver,
    IdempotencyKeyInUse,
    IdempotencyKeyReused,
    RateLimited,
    TooManyWebhooks,
    Unauthenticated,
    WebhookNotFound,
    WebhooksClosed,
    WebhookUrlRefused,
)
from service.idempotency import CLIENT_SECRET
from service.store.errors import (
    BadCursor,
    BadGameId,
    GameNotFound,
    NotReplicated,
    VersionConflict,
)
from service.store.refusals import RETRY_AFTER_S, Reason, refusal_reason
from service.writestate import accepted, current, refused

from .apierror import ApiLayerError
from .streamcaps import TooManyStreams

log = logging.getLogger("cardroom.api")

PROBLEM: Final = "application/problem+json"
TYPE_BASE: Final = "https://cardroom.dev/problems/"
TABLE_CONFLICTS: Final = frozenset({"table_full", "game_over"})
"""Table refusals that are about the table's state (409), not the request (422)."""
INVALID_FIELD: Final = "invalid-field"
NARROW_CODES: Final = (INVALID_FIELD, *OPTION_CODES)
"""The codes narrower than their problem's type (every other problem's ``code`` is
its type's slug)."""


class ApiError(ApiLayerError):
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
    code: str | None = None,
    params: Mapping[str, Any] | None = None,
    **extra: Any,
) -> Response:
    """The problem document: RFC 9457's members, the extensions in ``extra``, and the
    stable ``code`` (the type's slug unless a narrower one is given) with its
    ``params`` (the extensions unless given) that pages word in their player's language."""
    body: dict[str, Any] = {
        "type": TYPE_BASE + slug,
        "title": title,
        "status": status,
        "detail": detail,
    }
    extensions = {k: v for k, v in extra.items() if v is not None}
    body.update(extensions)
    body["code"] = code or slug
    body["params"] = dict(params) if params is not None else extensions
    rid = requestid.current()
    if rid is not None:  # the request's id, to find its log lines
        body["request_id"] = rid
    return Response(json.dumps(body), status=status, mimetype=PROBLEM, headers=headers)


Render = Callable[[Any], Response]
"""Writes the problem of one error, an instance of the type it is mapped to."""


def handle(exc: Exception) -> Response:
    """Turn ``exc`` into its problem response (registered for every exception)."""
    if isinstance(exc, ValidationError):
        exc = body_error(exc)
    render = render_for(type(exc))
    if render is not None:
        return render(exc)
    reason = refusal_reason(exc)
    return writes_refused(reason) if reason is not None else _internal(exc)


def render_for(kind: type[BaseException]) -> Render | None:
    """How :data:`PROBLEMS` writes ``kind``: by its nearest mapped base along its
    MRO (itself first); ``None`` when nothing there is mapped."""
    return next((PROBLEMS[base] for base in kind.__mro__ if base in PROBLEMS), None)


def _internal(exc: BaseException) -> Response:
    """A bug: logged with its traceback; the client learns nothing of the internals."""
    log.error("unhandled %s", type(exc).__name__, exc_info=exc)
    return problem(
        500,
        "internal",
        "Internal error",
        "the server failed to handle this request; it has been logged",
    )


def _api_error(exc: ApiError) -> Response:
    return problem(exc.status, exc.slug, exc.title, exc.detail, **exc.extra)


def _rate_limited(exc: RateLimited) -> Response:
    return problem(
        429,
        "rate-limited",
        "Too many requests",
        str(exc),
        headers={"Retry-After": str(exc.retry_after_s)},
        budget=exc.budget,
    )


def _too_many_streams(exc: TooManyStreams) -> Response:
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


def _invalid_body(exc: BodyError) -> Response:
    """A field of the body (or query) that broke a constraint: ``invalid-field`` with the
    field, the constraint and its limit."""
    params = {"field": exc.field, "constraint": exc.constraint, "limit": exc.limit}
    return problem(
        422,
        "invalid-body",
        "Invalid request",
        str(exc),
        code=INVALID_FIELD,
        params=params,
        field=exc.field,
    )


def _unauthenticated(exc: Unauthenticated) -> Response:
    return problem(
        401,
        "unauthenticated",
        "Seat token required",
        "send the seat token you got when taking the seat as 'Authorization: Bearer <token>'",
        headers={"WWW-Authenticate": 'Bearer realm="cardroom"'},
    )


def _forbidden(exc: Forbidden) -> Response:
    return problem(403, "forbidden", "Token not accepted", "this token opens no seat of this game")


def _game_not_found(exc: GameNotFound) -> Response:
    """410 for a table the retention pass expired (recently), else 404."""
    if _expired(exc.game_id):
        return problem(
            410,
            "table-expired",
            "Table expired",
            f"the table {exc.game_id!r} expired before every seat was taken; open a new one",
        )
    return _no_such_game(exc)


def _no_such_game(exc: GameNotFound | BadGameId) -> Response:
    return problem(404, "game-not-found", "No such game", f"no game {exc.game_id!r}")


def _stale_version(exc: VersionConflict) -> Response:
    return problem(
        409,
        "stale-version",
        "The game moved on",
        f"expected version {exc.expected} but the game is at version {exc.actual}; "
        "reload the game and decide again",
        current_version=exc.actual,
    )


def _table_refused(exc: TableError) -> Response:
    """409 when the table's state refuses (:data:`TABLE_CONFLICTS`), else an illegal move."""
    if exc.rule in TABLE_CONFLICTS:
        return problem(
            409, exc.rule.replace("_", "-"), "Refused by the table", str(exc), rule=exc.rule
        )
    return _illegal_move(exc)


def _illegal_move(exc: RuleError) -> Response:
    return problem(422, "illegal-move", "Illegal move", str(exc), rule=exc.rule)


def _bad_option(exc: OptionError) -> Response:
    return problem(
        422,
        "bad-option",
        "Bad table option",
        str(exc),
        code=exc.code,
        params=exc.params,
        option=exc.option,
    )


def _bad_client_seed(exc: SeedError) -> Response:
    return problem(422, "bad-client-seed", "Bad client seed", str(exc), field="client_seed")


def _bad_card(exc: CardError) -> Response:
    return problem(422, "illegal-move", "Illegal move", str(exc), rule="bad_card")


def _key_reused(exc: IdempotencyKeyReused) -> Response:
    return problem(
        422,
        "idempotency-key-reused",
        "Idempotency key reused",
        str(exc),
        field="idempotency_key",
    )


def _key_in_use(exc: IdempotencyKeyInUse) -> Response:
    return problem(
        409,
        "idempotency-key-in-use",
        "Idempotency key in use",
        str(exc),
        headers={"Retry-After": str(exc.retry_after_s)},
        field="idempotency_key",
    )


def _bad_client_secret(exc: BadClientSecret) -> Response:
    return problem(422, "bad-client-secret", "Bad client secret", str(exc), field=CLIENT_SECRET)


def _webhook_url_refused(exc: WebhookUrlRefused) -> Response:
    return problem(
        422, "webhook-url-refused", "Webhook URL refused", str(exc), field="url", reason=exc.reason
    )


def _too_many_webhooks(exc: TooManyWebhooks) -> Response:
    return problem(
        409, "too-many-webhooks", "Too many webhooks", str(exc), scope=exc.scope, limit=exc.limit
    )


def _webhook_not_found(exc: WebhookNotFound) -> Response:
    if exc.what == "delivery":
        return problem(404, "delivery-not-found", "No such delivery", str(exc))
    return problem(404, "webhook-not-found", "No such webhook", str(exc))


def _webhooks_closed(exc: WebhooksClosed) -> Response:
    return problem(409, "webhooks-closed", "Webhooks ended with the game", str(exc))


def _game_not_over(exc: GameNotOver) -> Response:
    return problem(409, "game-not-over", "The game is not over", str(exc))


def _bad_cursor(exc: BadCursor) -> Response:
    return problem(422, "invalid-body", "Invalid request", str(exc), field="cursor")


def _store_unavailable(exc: Exception) -> Response:
    """The store is unreachable or failing over: nothing was acknowledged; try again."""
    log.warning("store unavailable: %s", type(exc).__name__)
    return problem(
        503,
        "store-unavailable",
        "Store unavailable",
        "the event store is unavailable for a moment; retry the request "
        "(with the same idempotency_key) after the Retry-After seconds",
        headers={"Retry-After": "1"},
    )


def writes_refused(reason: Reason, **extra: Any) -> Response:
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
        **extra,
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


PROBLEMS: Final[Mapping[type[BaseException], Render]] = {
    # the API layer's own
    ApiError: _api_error,
    TooManyStreams: _too_many_streams,
    HTTPException: _http,
    # the request guards and the application service
    RateLimited: _rate_limited,
    Unauthenticated: _unauthenticated,
    Forbidden: _forbidden,
    IdempotencyKeyReused: _key_reused,
    IdempotencyKeyInUse: _key_in_use,
    BadClientSecret: _bad_client_secret,
    WebhookUrlRefused: _webhook_url_refused,
    TooManyWebhooks: _too_many_webhooks,
    WebhookNotFound: _webhook_not_found,
    WebhooksClosed: _webhooks_closed,
    GameNotOver: _game_not_over,
    # the schemas (a pydantic ValidationError becomes a BodyError first)
    BodyError: _invalid_body,
    # the engines
    TableError: _table_refused,
    RuleError: _illegal_move,
    OptionError: _bad_option,
    SeedError: _bad_client_seed,
    CardError: _bad_card,
    # the event store, and Redis itself
    GameNotFound: _game_not_found,
    BadGameId: _no_such_game,
    VersionConflict: _stale_version,
    BadCursor: _bad_cursor,
    NotReplicated: _store_unavailable,
    redis.exceptions.ConnectionError: _store_unavailable,
    redis.exceptions.TimeoutError: _store_unavailable,
    redis.exceptions.ClusterError: _store_unavailable,
}
"""Every error the API answers with its own problem, by type. An error is
written by its nearest base here (:func:`render_for`); Redis refusing writes
(:func:`~service.store.refusals.refusal_reason`) is a 503 ``store-read-only``;
anything else is a bug, the logged generic 500."""


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
