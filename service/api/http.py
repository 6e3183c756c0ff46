"""What every view needs: the service, the parsed body, the bearer token, a JSON answer.

Kept apart from the blueprints so each view stays three lines: parse, call, return.
"""

from __future__ import annotations

import json
from typing import Any, Final, TypeVar

from flask import Response, current_app, request
from pydantic import BaseModel, ValidationError

from schemas.api import QUERY_MALFORMED
from service.games import GameService

from .errors import ApiError

M = TypeVar("M", bound=BaseModel)
JSON_TYPES = ("application/json",)
MAX_DEPTH: Final = 32
"""How deeply a body may nest. The deepest real body has four levels (a Hazari
arrangement); one nested a thousand levels deep would exhaust the recursion
limit in the parser or in any later walk over it, and answer 500."""


def service() -> GameService:
    svc: GameService = current_app.extensions["cardroom"]
    return svc


def body(model: type[M]) -> M:
    """The request's JSON body validated as ``model`` (415, 400, 422 otherwise)."""
    mimetype = request.mimetype
    if mimetype not in JSON_TYPES and not mimetype.endswith("+json"):
        raise ApiError(
            415,
            "unsupported-media-type",
            "Unsupported media type",
            f"send the body as application/json, not {mimetype or 'no Content-Type'}",
        )
    raw = request.get_data(cache=True)
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ApiError(
            400, "malformed-json", "Malformed JSON", f"the body is not JSON: {exc}"
        ) from None
    except RecursionError:
        raise _too_deep() from None
    if not _shallow(data):
        raise _too_deep()
    return model.model_validate(data)


def _too_deep() -> ApiError:
    detail = f"the body nests more than {MAX_DEPTH} levels deep"
    return ApiError(400, "malformed-json", "Malformed JSON", detail)


def _shallow(data: Any) -> bool:
    """Whether ``data`` nests at most :data:`MAX_DEPTH` levels (walked without recursion)."""
    level: list[Any] = [data]
    for _ in range(MAX_DEPTH + 1):
        level = [
            child
            for item in level
            if isinstance(item, dict | list)
            for child in (item.values() if isinstance(item, dict) else item)
        ]
        if not level:
            return True
    return False


def query(model: type[M]) -> M:
    """The query string validated as ``model``, the one way every view reads one.

    A parameter given twice, or a value not of its parameter's form (see
    :data:`schemas.api.QUERY_MALFORMED`), is a 400 naming the parameter; a
    well-formed value out of range, or an unknown parameter, a 422.
    """
    args = request.args
    for name in args:
        if len(args.getlist(name)) > 1:
            raise _malformed(name, "given more than once")
    try:
        return model.model_validate(args.to_dict())
    except ValidationError as exc:
        for err in exc.errors(include_url=False):
            if err["type"] == QUERY_MALFORMED:
                raise _malformed(".".join(str(p) for p in err["loc"]), err["msg"]) from None
        raise


def _malformed(name: str, why: str) -> ApiError:
    return ApiError(
        400, "malformed-query", "Malformed query", f"{name}: {why}", field=name or "query"
    )


def bearer_token() -> str | None:
    """The token of ``Authorization: Bearer <token>``; ``None`` when absent.

    A malformed header is refused rather than ignored, so a client never
    silently gets the public view it did not ask for.
    """
    header = request.headers.get("Authorization")
    if header is None:
        return None
    scheme, _, token = header.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or len(token) > 256:
        raise ApiError(
            401,
            "unauthenticated",
            "Seat token required",
            "the Authorization header must be 'Bearer <token>'",
        )
    return token


def reply(model: BaseModel | dict[str, Any], status: int = 200, **headers: str) -> Response:
    """A JSON response from a response model (or an already JSON-ready dict)."""
    if isinstance(model, BaseModel):
        text = model.model_dump_json(exclude_unset=True)
    else:
        text = json.dumps(model, separators=(",", ":"))
    response = Response(text, status=status, mimetype="application/json")
    response.headers.update(headers)
    return response
