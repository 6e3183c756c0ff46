"""The HTTP API: ``create_app`` builds the Flask application.

One blueprint per resource, views that only parse, call the service and
return a model, and one error handler (``errors.py``) that turns every
failure into ``application/problem+json``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import Flask, Response

from service.config import Settings, load_settings
from service.games import GameService
from service.logs import setup_logging
from service.observe import init_observability
from service.runtime import Runtime
from service.seeds import default_cipher, is_in_process
from service.store import EventStore
from service.web import bp as web_pages

from . import errors, events, floor, games, meta, moves, replays, seats
from .followups import deferred, init_followups
from .limits import init_cors, init_limiter


def create_app(
    settings: Settings | None = None,
    runtime: Runtime | None = None,
    config: Mapping[str, Any] | None = None,
) -> Flask:
    """The application. ``config`` overrides Flask settings, e.g. ``RATELIMIT_ENABLED``
    (off in tests) or ``BENCH_FLOOR`` (the benchmark's bare endpoint, off by default)."""
    settings = settings or load_settings()
    runtime = runtime or Runtime.from_settings(settings)
    app = Flask(__name__)
    app.config.update(
        MAX_CONTENT_LENGTH=settings.max_body_bytes,
        RATELIMIT_ENABLED=True,
        BENCH_FLOOR=bool(getattr(settings, "bench_floor", False)),
    )
    app.config.update(config or {})
    seeds = default_cipher(is_in_process(runtime.redis), settings)
    store = EventStore(runtime.redis, idempotency_ttl_s=settings.idempotency_ttl_s, seeds=seeds)
    app.extensions["cardroom"] = GameService(runtime, store, deferred(runtime))
    init_followups(app, runtime)

    errors.register(app)
    limiter = init_limiter(app, settings)
    init_cors(app, settings)
    for blueprint in (games.bp, seats.bp, moves.bp, events.bp, replays.bp, meta.bp):
        app.register_blueprint(blueprint)
    app.register_blueprint(web_pages)
    if app.config["BENCH_FLOOR"]:
        app.register_blueprint(floor.bp)
    limiter.exempt(meta.healthz)
    setup_logging(settings.log_level)
    init_observability(app, app.extensions["cardroom"])
    limiter.exempt(app.view_functions["metrics"])

    @app.after_request
    def no_store(response: Response) -> Response:
        """Views change with every move and may hold a seat's hand: never cache them."""
        response.headers.setdefault("Cache-Control", "no-store")
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        return response

    return app
