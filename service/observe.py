"""Observability: Prometheus metrics at ``/metrics`` and one JSON log line per request
(static files at DEBUG).

Counters and histograms live in each process; under gunicorn every process's
samples are added up at scrape time (prometheus-client's multiprocess mode,
:mod:`service.scrape`). Gauges that describe the whole system (queue depth,
projection lag, the reconciler, the workers' heartbeats) are read from Redis
when scraped, so any process answers them the same; the lag is kept up to
date as games change (:mod:`service.store.lag`), so a scrape costs the same few
commands however many games there are.
"""

from __future__ import annotations

import json
import logging
import time
from datetime import UTC, datetime
from typing import Any

from flask import Flask, Response, g, request
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from .metrics import MOVES, REQUEST_SECONDS, REQUESTS
from .scrape import app_registry

log = logging.getLogger("cardroom.http")
STATIC_ENDPOINTS = frozenset({"static", "web.static"})
"""Endpoints of static files, logged at DEBUG."""


class SystemCollector(Collector):
    """Queue depth, projection lag, the reconciler and the workers, read from Redis
    at scrape time."""

    def __init__(self, service: Any) -> None:
        self.service = service

    def collect(self) -> Any:
        queue = GaugeMetricFamily("cardroom_queue_depth", "Jobs waiting in the RQ queue.")
        lag = GaugeMetricFamily(
            "cardroom_projection_lag_events",
            "Events not yet folded into snapshots, summed over all games (kept as they change).",
        )
        worst = GaugeMetricFamily(
            "cardroom_projection_lag_max_events", "The largest projection lag of one game."
        )
        try:
            queue.add_metric([], float(len(self.service.runtime.queue)))
            behind, most = self.service.store.lag.read()
            lag.add_metric([], float(behind))
            worst.add_metric([], float(most))
        except Exception:  # a scrape must not fail because Redis hiccupped
            log.warning("metrics: could not read queue or projection state")
        yield queue
        yield lag
        yield worst
        yield from self._reconciler()
        yield from self._audit()
        yield from self._workers()

    def _reconciler(self) -> Any:
        age = GaugeMetricFamily(
            "cardroom_reconcile_sweep_age_seconds",
            "Seconds since the reconciler last completed a sweep of all unfinished games.",
        )
        found = GaugeMetricFamily(
            "cardroom_reconcile_games_found",
            "Games left behind that the reconciler's last complete sweep poked.",
        )
        try:
            store = self.service.store
            last = store.reconciler.last_sweep()
            if last is not None:  # a sweep's time is Redis's: so is now
                age.add_metric([], max(0.0, (store.now_ms() - last[0]) / 1000))
                found.add_metric([], float(last[1]))
        except Exception:
            log.warning("metrics: could not read the reconciler's state")
        yield age
        yield found

    def _audit(self) -> Any:
        """The figures of the last complete ``cardroom audit`` (none before the first)."""
        when = GaugeMetricFamily(
            "cardroom_audit_last_timestamp_seconds",
            "When the last complete audit of the finished games ended (Unix time).",
        )
        games = GaugeMetricFamily(
            "cardroom_audit_last_games", "Games the last complete audit checked."
        )
        failures = GaugeMetricFamily(
            "cardroom_audit_last_failures", "Games the last complete audit found not verified."
        )
        took = GaugeMetricFamily(
            "cardroom_audit_last_duration_seconds", "How long the last complete audit took."
        )
        try:
            last = self.service.store.audits.last()
            if last is not None:
                when.add_metric([], last.finished_ms / 1000)
                games.add_metric([], float(last.games))
                failures.add_metric([], float(last.failures))
                took.add_metric([], last.seconds)
        except Exception:
            log.warning("metrics: could not read the last audit's figures")
        yield when
        yield games
        yield failures
        yield took

    def _workers(self) -> Any:
        alive = GaugeMetricFamily(
            "cardroom_workers",
            "RQ workers of the queue whose heartbeat has not expired (RQ's own record).",
        )
        age = GaugeMetricFamily(
            "cardroom_worker_heartbeat_age_seconds",
            "Seconds since the freshest heartbeat of a worker of the queue (none: no worker).",
        )
        try:
            from rq import Worker

            workers = Worker.all(queue=self.service.runtime.queue)
            alive.add_metric([], float(len(workers)))
            beats = [w.last_heartbeat for w in workers if w.last_heartbeat is not None]
            if beats:
                freshest = max(b if b.tzinfo else b.replace(tzinfo=UTC) for b in beats)
                age.add_metric([], max(0.0, (datetime.now(UTC) - freshest).total_seconds()))
        except Exception:
            log.warning("metrics: could not read the workers' heartbeats")
        yield alive
        yield age


def metrics_registry(service: Any) -> CollectorRegistry:
    """``/metrics``: this process's samples, or every gunicorn process's
    (:func:`service.scrape.app_registry`), and the system gauges."""
    return app_registry(SystemCollector(service))


def init_observability(app: Flask, service: Any) -> None:
    registry = metrics_registry(service)

    @app.get("/metrics")
    def metrics() -> Response:
        return Response(generate_latest(registry), mimetype=CONTENT_TYPE_LATEST)

    @app.before_request
    def start_clock() -> None:
        g.cardroom_started = time.perf_counter()

    @app.after_request
    def record(response: Response) -> Response:
        started = getattr(g, "cardroom_started", None)
        duration = time.perf_counter() - started if started is not None else 0.0
        endpoint = request.endpoint or "unknown"
        REQUESTS.labels(endpoint, str(response.status_code)).inc()
        REQUEST_SECONDS.labels(endpoint).observe(duration)
        moved = request.method == "POST" and request.path.endswith("/moves")
        # Static files (scripts, styles, catalogs) at DEBUG: a page load is one line.
        level = logging.DEBUG if endpoint in STATIC_ENDPOINTS else logging.INFO
        logged = log.isEnabledFor(level)
        if not (moved or logged):
            return response
        view_args = request.view_args or {}
        game_id = view_args.get("game_id")
        entry: dict[str, Any] = {
            "method": request.method,
            "endpoint": endpoint,
            "path": request.path,
            "status": response.status_code,
            "duration_ms": round(duration * 1000, 2),
            "game_id": game_id,
            "outcome": "ok" if response.status_code < 400 else "rejected",
        }
        if moved:
            game = g.get("cardroom_game") or _game_of(service, game_id)
            _count_move(response, entry, game)
        if logged:
            log.log(level, "request", extra=entry)
        return response


def _game_of(service: Any, game_id: object) -> str:
    if not isinstance(game_id, str):
        return "unknown"
    try:
        return str(service.store.game_of(game_id))
    except Exception:  # an unknown or malformed game id
        return "unknown"


def _count_move(response: Response, entry: dict[str, Any], game: str) -> None:
    if response.status_code == 201:
        MOVES.labels(game, "accepted", "").inc()
        version = g.get("cardroom_move_version")
        entry["version"] = version if version is not None else _json_of(response).get("version")
        return
    body = _json_of(response)
    reason = (
        body.get("rule") or body.get("type", "").rsplit("/", 1)[-1] or str(response.status_code)
    )
    MOVES.labels(game, "rejected", str(reason)).inc()
    entry["reason"] = reason


def _json_of(response: Response) -> dict[str, Any]:
    if response.is_streamed or not response.content_type:
        return {}
    if "json" not in response.content_type:
        return {}
    try:
        data = json.loads(response.get_data())
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}
