"""The stream server: live event streams (``GET /games/{id}/events``) on evented workers.

A live stream stays open for as long as its client wants. Served by the
API's threaded gunicorn each one would hold a request thread, and a few
dozen idle streams would leave no thread for moves and views. The stream
server is the same Flask application restricted to the events endpoint
(live streams and their JSON pages) and the health check, run by gunicorn
with gevent workers of the project's own (``deploy/gunicorn-streams.conf.py``,
:mod:`service.parking`): a stream is opened in its request's greenlet, then
parked, its connection handed to the process's one writer, which writes its
lines as its subscriber of the process's stream hub (:mod:`service.hub`)
gets them; the hub's few readers each wait in one Redis ``XREAD BLOCK`` over
hundreds of games. So an idle stream holds no thread and no greenlet, a few
KiB of memory, and thousands of streams share a handful of Redis connections.
A reverse proxy sends ``/games/{id}/events`` here and everything else to
the API (``deploy/nginx.conf``; see docs/operations.md).

Run it with::

    gunicorn -c deploy/gunicorn-streams.conf.py 'service.streams:create_app()'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import Flask

from service import api
from service.config import Settings, load_settings
from service.runtime import Runtime

POOL_CONNECTIONS = 8
"""Redis connections the process's requests (a stream's opening: its load, seat
check and catch-up; the hub's wake-ups) share at most, beside the hub's readers
(one connection each); a request finding them all busy waits for one (a
blocking pool) rather than opening more."""
POOL_WAIT_S = 5.0


def create_app(
    settings: Settings | None = None,
    runtime: Runtime | None = None,
    config: Mapping[str, Any] | None = None,
) -> Flask:
    """The stream server's application (see the module's documentation)."""
    settings = settings or load_settings()
    runtime = runtime or Runtime.from_settings(settings)
    runtime.bound_store_pool(POOL_CONNECTIONS, POOL_WAIT_S)
    return api.create_app(settings, runtime, {**(config or {}), "STREAMS_ONLY": True})
