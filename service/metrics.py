"""The process's Prometheus metrics (served by ``service/observe.py``)."""

from __future__ import annotations

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
