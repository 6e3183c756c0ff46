"""Request limits: a rate limit per seat token and per address, and CORS.

Both rate limits share ``settings.rate_limit`` and count every request of
the application (not per endpoint), so a client cannot spread a flood over
several routes. Counters live in memory in the embedded mode and in the
event store's Redis otherwise, so every API process sees the same counts.
``RATELIMIT_ENABLED = False`` in the app's config turns limiting off (tests).
"""

from __future__ import annotations

from typing import Any

from flask import Flask, Response, request
from flask_limiter import ApplicationLimit, Limiter
from flask_limiter.util import get_remote_address

from service.config import Settings

from .http import rate_key_token


def storage_uri(settings: Settings) -> str:
    if settings.redis_url is None:
        return "memory://"
    if settings.redis_cluster:
        return "redis+cluster://" + settings.redis_url.split("://", 1)[-1]
    return settings.redis_url


def storage_options(settings: Settings) -> dict[str, Any]:
    """The Redis password of CARDROOM_REDIS_PASSWORD_FILE, if set (else the URL's)."""
    password = settings.redis_password() if settings.redis_url is not None else None
    return {} if password is None else {"password": password}


def _no_token() -> bool:
    return rate_key_token() == ""


def init_limiter(app: Flask, settings: Settings) -> Limiter:
    limiter = Limiter(
        get_remote_address,
        application_limits=[
            ApplicationLimit(settings.rate_limit, key_function=get_remote_address, scope="addr"),
            ApplicationLimit(
                settings.rate_limit,
                key_function=rate_key_token,
                scope="token",
                exempt_when=_no_token,
            ),
        ],
        storage_uri=storage_uri(settings),
        storage_options=storage_options(settings),
        key_prefix="cardroom-rate",
        headers_enabled=False,
        swallow_errors=True,
        enabled=app.config.get("RATELIMIT_ENABLED", True),
    )
    limiter.init_app(app)
    app.extensions["cardroom_limiter"] = limiter
    return limiter


def init_cors(app: Flask, settings: Settings) -> None:
    """Allow the configured origins (none by default: CORS stays off)."""
    origins = {o.strip() for o in settings.cors_origins.split(",") if o.strip()}
    if not origins:
        return

    @app.after_request
    def add_cors(response: Response) -> Response:
        origin = request.headers.get("Origin")
        if origin and ("*" in origins or origin in origins):
            response.headers["Access-Control-Allow-Origin"] = "*" if "*" in origins else origin
            response.headers["Vary"] = "Origin"
            response.headers["Access-Control-Allow-Headers"] = "Authorization, Content-Type"
            response.headers["Access-Control-Allow-Methods"] = "GET, POST, OPTIONS"
            response.headers["Access-Control-Expose-Headers"] = "Retry-After"
        return response
