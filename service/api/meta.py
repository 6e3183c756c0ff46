"""``/openapi.json``, ``/docs`` and the probes: ``/livez``, ``/healthz``, ``/readyz``.

- ``/livez``: the process answers (no Redis command): restart it if not.
- ``/healthz``: Redis answers (a ``PING``): reads can be served.
- ``/readyz``: ready to serve every request, each check in turn, the first that
  fails named in the ``503`` problem's ``check``:

  - ``redis``: Redis answers;
  - ``writes``: it takes writes (a small write with a TTL to a key of
    cardroom's own). Not while Redis is at ``maxmemory``, failing to persist
    (``MISCONF``) or a replica (``READONLY``): ``503`` ``store-read-only``
    with the reason, as a write would get;
  - ``scripts``: it holds the service's Lua scripts (loaded if missing);
  - ``workers`` (the API, not the stream server): a worker's heartbeat at
    most ``CARDROOM_WORKER_HEARTBEAT_MAX_AGE_S`` old (:mod:`service.heartbeats`).
"""

from __future__ import annotations

import logging
import time
from typing import Final

from flask import Blueprint, Response, current_app

from schemas.api import Health, Live, Ready
from service.heartbeats import fresh_workers
from service.runtime import Runtime
from service.store.errors import CommandRefused
from service.store.refusals import refusal_reason
from service.writestate import accepted

from .docs_page import page
from .errors import ApiError, writes_refused
from .http import reply, service
from .openapi import spec

log = logging.getLogger("cardroom.api")
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
    store = service().store
    try:
        store.health.probe_write(int(time.time() * 1000), PROBE_TTL_MS)
    except CommandRefused as exc:
        reason = refusal_reason(exc)
        if reason is None:
            raise
        return writes_refused(reason, check="writes")
    except Exception:
        raise not_ready("redis", "Redis does not answer") from None
    accepted()
    try:
        store.health.load_scripts()
    except Exception:
        log.exception("readyz: the Lua scripts could not be loaded")
        raise not_ready("scripts", "Redis does not hold the service's scripts") from None
    if current_app.config["STREAMS_ONLY"]:
        return reply(Ready(status="ready", redis="ok", writes="ok", scripts="ok"))
    return reply(Ready(status="ready", redis="ok", writes="ok", scripts="ok", workers=_workers()))


def _workers() -> int:
    """How many workers beat recently; raises the ``workers`` problem if none."""
    runtime: Runtime = current_app.extensions["cardroom_runtime"]
    try:
        fresh = fresh_workers(runtime)
    except Exception:
        raise not_ready("workers", "the queue's Redis does not answer") from None
    if not fresh:
        max_age = runtime.settings.worker_heartbeat_max_age_s
        raise not_ready("workers", f"no worker's heartbeat is less than {max_age:g} s old")
    return fresh


def not_ready(check: str, detail: str) -> ApiError:
    """The ``503`` of ``/readyz`` whose ``check`` failed."""
    return ApiError(503, "unavailable", "Unavailable", detail, check=check)
