"""The HTTP API: ``create_app`` builds the Flask application.

One blueprint per resource, views that only parse, call the service and
return a model, and one error handler (``errors.py``) that turns every
failure into ``application/problem+json``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from flask import Flask, Response
from werkzeug.middleware.proxy_fix import ProxyFix

from service.config import Settings, load_settings
from service.logs import setup_logging
from service.observe import init_observability
from service.runtime import Runtime
from service.web import bp as web_pages

from . import (
    errors,
    events,
    fairness,
    floor,
    games,
    kinds,
    messages,
    meta,
    moves,
    players,
    rematches,
    replays,
    seats,
    webhooks,
)
from .followups import deferred, init_followups
from .limits import init_cors, init_limits
from .requestids import init_request_ids
from .streamcaps import StreamSlots


class CardroomFlask(Flask):
    """Flask, with its check for ``async def`` views and hooks made once per
    function instead of on every call (:meth:`Flask.ensure_sync`, which Flask
    asks to be overridden for such changes): a request runs half a dozen hooks."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._sync: dict[Callable[..., Any], Callable[..., Any]] = {}

    def ensure_sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
        try:
            return self._sync[func]
        except KeyError:
            sync = self._sync[func] = super().ensure_sync(func)
            return sync


def create_app(
    settings: Settings | None = None,
    runtime: Runtime | None = None,
    config: Mapping[str, Any] | None = None,
) -> Flask:
    """The application. ``config`` overrides Flask settings, e.g. ``RATELIMIT_ENABLED``
    (off in tests), ``BENCH_FLOOR`` (the benchmark's bare endpoint, off by default) or
    ``STREAMS_ONLY`` (the stream server's app: ``/games/{id}/events`` and the health
    check only, see :mod:`service.streams`)."""
    settings = settings or load_settings()
    runtime = runtime or Runtime.from_settings(settings)
    app = CardroomFlask(__name__)
    app.config.update(
        MAX_CONTENT_LENGTH=settings.max_body_bytes,
        RATELIMIT_ENABLED=True,
        BENCH_FLOOR=bool(getattr(settings, "bench_floor", False)),
        STREAMS_ONLY=False,
    )
    app.config.update(config or {})
    if settings.proxies:
        # the client's address (rate limits, stream caps) from the proxies' X-Forwarded-For
        app.wsgi_app = ProxyFix(  # type: ignore[method-assign]
            app.wsgi_app, x_for=settings.proxies, x_proto=settings.proxies
        )
    app.extensions["cardroom_runtime"] = runtime
    app.extensions["cardroom_streams"] = StreamSlots.from_settings(settings)
    app.extensions["cardroom"] = runtime.service(*deferred(runtime))
    init_request_ids(app)
    init_followups(app, runtime)

    errors.register(app)
    init_limits(app, settings, runtime)
    init_cors(app, settings)
    _register_blueprints(app)
    setup_logging(settings.log_level)
    init_observability(app, app.extensions["cardroom"])

    @app.after_request
    def no_store(response: Response) -> Response:
        """Views change with every move and may hold a seat's hand: never cache them."""
        response.headers.setdefault("Cache-Control", "no-store")
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        return response

    return app


def _register_blueprints(app: Flask) -> None:
    """The routes: the stream server's alone (``STREAMS_ONLY``), else every
    resource's and the web pages; the benchmark's floor when ``BENCH_FLOOR``."""
    if app.config["STREAMS_ONLY"]:
        app.register_blueprint(events.bp)
        app.register_blueprint(players.stream_bp)
        app.register_blueprint(meta.bp)
    else:
        for blueprint in (
            kinds.bp,
            games.bp,
            seats.bp,
            moves.bp,
            events.bp,
            replays.bp,
            webhooks.bp,
            rematches.bp,
            messages.bp,
            fairness.bp,
            players.bp,
            players.stream_bp,
            meta.bp,
        ):
            app.register_blueprint(blueprint)
        app.register_blueprint(web_pages)
    if app.config["BENCH_FLOOR"]:
        app.register_blueprint(floor.bp)
