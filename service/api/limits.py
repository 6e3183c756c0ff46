"""Rate limits where they protect something, and CORS.

Budgets (see docs/operations.md for the arithmetic behind the defaults):

- ``moves``: per seat of a game and API process, ``CARDROOM_LIMIT_MOVES``;
  charged by the move view once the token has named the seat, counted in
  memory: a move already costs its append, and with ``appendfsync always``
  a counter in Redis would cost every move a second write to disk;
- ``games``, ``seats``, ``reads``: per client address, for opening a game,
  taking a seat, and the expensive reads (``/replay``, ``/verify``, and a
  page of events by its size: one read per :data:`EVENTS_PER_READ` events
  read from the stream, one for a large page of an ended game's kept list;
  see :func:`charge_events`);
- ``requests``: every other API request, per address and per API process
  (``CARDROOM_RATE_LIMIT``), counted in memory at no Redis cost: a guard
  against floods of cheap reads that ordinary play never comes near.

The per-address buckets live in the event store's Redis (one ``EVALSHA``
each, keys under ``cardroom:`` that expire once the bucket is full again),
or in the process in the embedded mode. If Redis fails during
a check the request goes through: the limiter never turns an outage into
429s. ``RATELIMIT_ENABLED = False`` in the app's config turns limits off.
"""

from __future__ import annotations

import logging
from typing import Any, Final

import redis
from flask import Flask, Response, current_app, request

from service.budgets import MemoryBudgets, Rate, RateLimited, RedisBudgets
from service.config import Settings
from service.store import keys

log = logging.getLogger("cardroom.api")

ADDRESS_BUDGETS: Final = {
    "games.create_game": "games",
    "seats.take_seat": "seats",
    "players.create_player": "seats",
    "replays.replay": "reads",
    "replays.verify": "reads",
    "webhooks.create_webhook": "webhooks",
}
"""The endpoints with an address budget of their own, and its name."""
EVENTS_PER_READ: Final = 100
"""Events of a page (or of a live stream's catch-up) decoded per read charged:
about what one replay costs to serve (docs/reliability.md has the figures)."""
UNGUARDED: Final = frozenset({"meta.healthz", "meta.readyz", "meta.livez", "metrics", "static"})
"""Endpoints outside every budget (probes and metrics); the web pages are too."""


class Limits:
    """The budgets of one API process."""

    def __init__(self, settings: Settings, store_redis: object | None) -> None:
        self.rates = {
            "moves": Rate.parse(settings.limit_moves),
            "games": Rate.parse(settings.limit_games),
            "seats": Rate.parse(settings.limit_seats),
            "reads": Rate.parse(settings.limit_reads),
            "webhooks": Rate.parse(settings.limit_webhooks),
            "requests": Rate.parse(settings.rate_limit),
        }
        self.shared: RedisBudgets | MemoryBudgets = (
            MemoryBudgets() if store_redis is None else RedisBudgets(store_redis)
        )
        self.local = MemoryBudgets()

    def _take(
        self, budget: str, key: str, who: str, *, shared: bool = True, tokens: int = 1
    ) -> None:
        rate = self.rates[budget]
        try:
            wait = (self.shared if shared else self.local).take(key, rate, tokens)
        except redis.RedisError as exc:
            log.warning("rate limit not checked: %s", type(exc).__name__)
            return
        if wait > 0:
            raise RateLimited(budget, who, rate, wait)

    def charge_address(self, budget: str, address: str, tokens: int = 1) -> None:
        self._take(budget, keys.rate_address(budget, address), "this address", tokens=tokens)

    def charge_request(self, address: str) -> None:
        self._take("requests", address, "this address", shared=False)

    def charge_move(self, game_id: str, seat: int) -> None:
        self._take("moves", f"{game_id}/{seat}", "this seat", shared=False)


def limits() -> Limits | None:
    """The app's limits, or ``None`` when limiting is off."""
    found: Limits | None = current_app.extensions.get("cardroom_limits")
    return found


def charge_move(game_id: str, seat: int) -> None:
    """Charge one move to ``seat``'s budget (:class:`RateLimited` when spent)."""
    found = limits()
    if found is not None:
        found.charge_move(game_id, seat)


def charge_events(count: int, *, kept: bool = False) -> None:
    """Charge a page of ``count`` events to the client address's ``reads`` budget
    (:class:`RateLimited` when spent): one read per :data:`EVENTS_PER_READ` events
    decoded from the stream, or one read for a page of at least that many served
    from an ended game's kept list (``kept``), as a replay is; smaller pages cost
    no read (a table's client reads its last few dozen events)."""
    found = limits()
    if found is None or count < EVENTS_PER_READ:
        return
    reads = 1 if kept else count // EVENTS_PER_READ
    found.charge_address("reads", request.remote_addr or "-", reads)


def init_limits(app: Flask, settings: Settings, runtime: Any) -> Limits | None:
    """The rate limits of ``app``, their budgets on ``runtime``'s store client
    (in process when embedded)."""
    limits_on = bool(app.config.get("RATELIMIT_ENABLED", True))
    found = Limits(settings, None if settings.embedded else runtime.redis) if limits_on else None
    if found is None:
        return None
    app.extensions["cardroom_limits"] = found

    @app.before_request
    def check_budgets() -> None:
        endpoint = request.endpoint or ""
        if endpoint in UNGUARDED or request.blueprint == "web" or request.method == "OPTIONS":
            return
        address = request.remote_addr or "-"
        budget = ADDRESS_BUDGETS.get(endpoint)
        if budget is not None:
            found.charge_address(budget, address)
        else:  # a move is charged to its seat as well, once the token names it
            found.charge_request(address)

    return found


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
