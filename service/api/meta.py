"""``/openapi.json``, ``/docs`` and ``/healthz``."""

from __future__ import annotations

from flask import Blueprint, Response

from schemas.api import Health

from .docs_page import page
from .errors import ApiError
from .http import reply, service
from .openapi import spec

bp = Blueprint("meta", __name__)


@bp.get("/openapi.json")
def openapi() -> Response:
    return reply(spec())


@bp.get("/docs")
def docs() -> Response:
    return Response(page(), mimetype="text/html")


@bp.get("/healthz")
def healthz() -> Response:
    try:
        service().store.redis.ping()
    except Exception:
        raise ApiError(503, "unavailable", "Unavailable", "Redis does not answer") from None
    return reply(Health(status="ok", redis="ok"))
