"""The process's Prometheus metrics (served by ``service/scrape.py``).

Every gauge names its ``multiprocess_mode``: under gunicorn (Prometheus
multiprocess mode, ``service/multiproc.py``) a scrape adds up the samples of
every process, and a gauge says how. ``live*`` modes forget a process once
gunicorn has seen it exit.
"""

from __future__ import annotations

import platform
from importlib.metadata import PackageNotFoundError, version

from prometheus_client import Counter, Gauge, Histogram

MOVES = Counter(
    "cardroom_moves_total",
    "Moves submitted over HTTP, by game, outcome and the reason of a rejection.",
    ["game", "outcome", "reason"],
)
APPEND_SECONDS = Histogram(
    "cardroom_append_seconds",
    "Time of one atomic append to the event store.",
    buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 1.0),
)
REQUESTS = Counter(
    "cardroom_http_requests_total", "HTTP requests by endpoint and status.", ["endpoint", "status"]
)
REQUEST_SECONDS = Histogram(
    "cardroom_http_request_seconds", "HTTP request latency by endpoint.", ["endpoint"]
)
STORE_REFUSED_WRITES = Counter(
    "cardroom_store_refused_writes_total",
    "Requests answered 503 because Redis refused a write, by reason "
    "(maxmemory, persistence, replica).",
    ["reason"],
)
STORE_REFUSING_WRITES = Gauge(
    "cardroom_store_refusing_writes",
    "1 while Redis refuses writes for this reason, as last seen by a write or a "
    "/readyz probe; else 0.",
    ["reason"],
    multiprocess_mode="livemostrecent",
)
STREAMS_OPEN = Gauge(
    "cardroom_streams_open",
    "Live event streams open, by kind (seat, spectator, player).",
    ["kind"],
    multiprocess_mode="livesum",
)
STREAMS_REFUSED = Counter(
    "cardroom_streams_refused_total",
    "Live event streams refused at a cap (429 too-many-streams), by the cap's scope.",
    ["scope"],
)
WEBHOOK_DELIVERIES = Counter(
    "cardroom_webhook_deliveries_total",
    "Webhook deliveries ended, by outcome (delivered, failed: retries spent, expired: "
    "the turn's deadline passed, paused: the subscription was paused, dropped: it was "
    "deleted or the game removed).",
    ["outcome"],
)
WEBHOOK_ATTEMPTS = Counter(
    "cardroom_webhook_attempts_total",
    "Webhook attempts, by result (ok, http_error, timeout, connect, blocked, other).",
    ["result"],
)
WEBHOOK_LAG_SECONDS = Histogram(
    "cardroom_webhook_lag_seconds",
    "From a webhook's event to its delivery's first attempt.",
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0),
)
WEBHOOK_ATTEMPT_SECONDS = Histogram(
    "cardroom_webhook_attempt_seconds",
    "Time of one webhook attempt, from connecting to the reply read.",
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)
WEBHOOKS_PAUSED = Gauge(
    "cardroom_webhooks_paused",
    "Webhook subscriptions paused after failing again and again (as the workers' "
    "sweep last counted them).",
    multiprocess_mode="livemax",
)
BUILD_INFO = Gauge(
    "cardroom_build_info",
    "Always 1: the version of cardroom and of Python this process runs.",
    ["version", "python"],
    multiprocess_mode="livemax",
)


def cardroom_version() -> str:
    """The installed package's version (``unknown`` when run from a bare checkout)."""
    try:
        return version("cardroom")
    except PackageNotFoundError:
        return "unknown"


BUILD_INFO.labels(cardroom_version(), platform.python_version()).set(1)
