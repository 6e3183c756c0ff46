"""``/openapi.json``, ``/docs`` and the probes: ``/livez``, ``/healthz``, ``/readyz``.

- ``/livez``: the process answers (no Redis command): restart it if not.
- ``/healthz``: Redis answers (a ``PING``): reads can be served.
- ``/readyz``: Redis answers *and* takes writes (a small write with a TTL to
  a key of cardroom's own): moves, seats and new tables can be served. Not
  ready while Redis is at ``maxmemory``, failing to persist (``MISCONF``) or a
  replica (``READONLY``): ``503`` with the reason, as a write would get.
"""

from __future__ import annotations

import time
from typing import Final

from flask import Blueprint, Response

from schemas.api import Health, Live, Ready
from service.store.errors import CommandRefused
from service.store.refusals import refusal_reason
from service.writestate import accepted

from .docs_page import page
from .errors import ApiError, writes_refused
from .http import reply, service
from .openapi import spec

bp = Blueprint("meta", __name__)
PROBE_TTL_MS: Final = 60_000


@bp.get("/openapi.json")
def openapi() -> Response:
    return reply(spec())


@bp.get("/docs")
def docs() -> Response:
    return Response(page(), mimetype="text/html")


@bp.get("/livez")
def livez() -> Response:
    return reply(Live(status="ok"))


@bp.get("/healthz")
def healthz() -> Response:
    try:
        service().store.health.ping()
    except Exception:
        raise ApiError(503, "unavailable", "Unavailable", "Redis does not answer") from None
    return reply(Health(status="ok", redis="ok"))


@bp.get("/readyz")
def readyz() -> Response:
    try:
        service().store.health.probe_write(int(time.time() * 1000), PROBE_TTL_MS)
    except CommandRefused as exc:
        reason = refusal_reason(exc)
        if reason is None:
            raise
        return writes_refused(reason)
    except Exception:
        raise ApiError(503, "unavailable", "Unavailable", "Redis does not answer") from None
    accepted()
    return reply(Ready(status="ready", redis="ok", writes="ok"))
