"""What each process serves to Prometheus, and how.

- **The API and the stream server** answer ``GET /metrics``
  (:func:`app_registry`, served by :mod:`service.observe`). Under gunicorn
  (``deploy/gunicorn*.conf.py`` set ``PROMETHEUS_MULTIPROC_DIR``:
  :mod:`service.multiproc`) every process writes its samples to files there,
  and whichever process answers a scrape adds them all up (prometheus-client's
  multiprocess mode): counters and histograms summed, each gauge as its
  ``multiprocess_mode`` says, and the process metrics (``process_*``) of every
  live process with a ``pid`` label. Without it (``cardroom serve``), the one
  process's own metrics, the retention pass's among them (its in-process
  worker runs that pass).
- **``cardroom worker`` and ``cardroom scheduler``** serve theirs on a port of
  their own (:func:`serve_worker_metrics`): the retention pass's gauge and
  counter live there, with the append latency of the events their jobs write.

Every process also says ``cardroom_build_info{version, python} 1``.
"""

from __future__ import annotations

import glob
import logging
import os
import re
from collections.abc import Iterable, Iterator
from typing import Final

from prometheus_client import CollectorRegistry, Metric, ProcessCollector, start_http_server
from prometheus_client.metrics import MetricWrapperBase
from prometheus_client.registry import Collector

from .metrics import (
    APPEND_SECONDS,
    BUILD_INFO,
    MOVES,
    REQUEST_SECONDS,
    REQUESTS,
    STORE_REFUSED_WRITES,
    STORE_REFUSING_WRITES,
    STREAMS_OPEN,
    STREAMS_REFUSED,
    WEBHOOK_ATTEMPT_SECONDS,
    WEBHOOK_ATTEMPTS,
    WEBHOOK_DELIVERIES,
    WEBHOOK_LAG_SECONDS,
    WEBHOOKS_PAUSED,
)
from .retention import REDIS_MEMORY_RATIO, RETAINED

log = logging.getLogger("cardroom.metrics")

MULTIPROC_ENV: Final = "PROMETHEUS_MULTIPROC_DIR"
APP_METRICS: Final[tuple[Collector, ...]] = (
    MOVES,
    APPEND_SECONDS,
    REQUESTS,
    REQUEST_SECONDS,
    STORE_REFUSED_WRITES,
    STORE_REFUSING_WRITES,
    STREAMS_OPEN,
    STREAMS_REFUSED,
    BUILD_INFO,
)
"""What the API and the stream server count."""
WORKER_ONLY: Final[tuple[MetricWrapperBase, ...]] = (
    REDIS_MEMORY_RATIO,
    RETAINED,
    WEBHOOK_DELIVERIES,
    WEBHOOK_ATTEMPTS,
    WEBHOOK_LAG_SECONDS,
    WEBHOOK_ATTEMPT_SECONDS,
    WEBHOOKS_PAUSED,
)
"""The retention pass's and the webhook deliveries': kept by the process that runs
them (a worker, the scheduler, or ``cardroom serve``'s in-process worker), never by
gunicorn's."""
WORKER_METRICS: Final[tuple[Collector, ...]] = (*WORKER_ONLY, APPEND_SECONDS, BUILD_INFO)
"""What ``cardroom worker`` and ``cardroom scheduler`` serve (and their process metrics)."""
LIVE_FILE: Final = re.compile(r"gauge_live[a-z]+_(\d+)\.db")


def multiproc_dir() -> str | None:
    """The multiprocess directory of this process, if it runs under gunicorn's."""
    return os.environ.get(MULTIPROC_ENV) or None


def app_registry(system: Collector) -> CollectorRegistry:
    """The API's or the stream server's ``/metrics``: every gunicorn process's
    samples (multiprocess mode) or this process's own, and ``system`` (gauges
    read from Redis at scrape time, the same whichever process answers)."""
    registry = CollectorRegistry()
    path = multiproc_dir()
    if path is not None:
        registry.register(AllProcesses(path))
        registry.register(LiveProcesses(path))
    else:
        for collector in (*APP_METRICS, *WORKER_ONLY):
            registry.register(collector)
        ProcessCollector(registry=registry)
    registry.register(system)
    return registry


def worker_registry() -> CollectorRegistry:
    """What ``cardroom worker`` and ``cardroom scheduler`` serve."""
    registry = CollectorRegistry()
    for collector in WORKER_METRICS:
        registry.register(collector)
    ProcessCollector(registry=registry)
    return registry


def serve_worker_metrics(port: int, host: str, process: str) -> bool:
    """Serve :func:`worker_registry` at ``http://host:port/metrics`` from a
    thread; ``port`` 0 serves nothing. A port already taken is logged and
    the process goes on without metrics (its jobs matter more)."""
    if port == 0:
        return False
    try:
        start_http_server(port, addr=host, registry=worker_registry())
    except OSError as exc:
        log.error(
            "metrics not served",
            extra={"role": process, "port": port, "reason": f"{type(exc).__name__}: {exc}"},
        )
        return False
    log.info("metrics served", extra={"role": process, "host": host, "port": port})
    return True


class AllProcesses(Collector):
    """prometheus-client's multiprocess collector without the retention pass's
    metrics (gunicorn's processes never run that pass, so theirs would be zeros),
    and without the files of processes being born.

    A process creates its file, then sizes it: for that instant the file is
    empty, and prometheus-client fails the whole scrape on it
    (prometheus/client_python#1199), as it would for ever on the empty file of a
    process killed in that instant. Such a file holds nothing yet, so it is
    left out; files only grow, so one checked is safe to read."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._skip = {family.name for c in WORKER_ONLY for family in c.describe()}

    def collect(self) -> Iterator[Metric]:
        from prometheus_client.multiprocess import MultiProcessCollector

        files = [f for f in glob.glob(os.path.join(self.path, "*.db")) if _sized(f)]
        for family in MultiProcessCollector.merge(files, accumulate=True):  # type: ignore[no-untyped-call]
            if family.name not in self._skip:
                yield family


SIZED_AT: Final = 8
"""The bytes a metrics file has once its process has sized it (its header)."""


def _sized(path: str) -> bool:
    try:
        return os.path.getsize(path) >= SIZED_AT
    except OSError:  # a live gauge's file, removed as its process ended
        return False


class LiveProcesses(Collector):
    """The process metrics (``process_*``) of every live process of the
    multiprocess directory, labelled with its ``pid``: those whose ``live*``
    gauge files are there (gunicorn's ``child_exit`` removes a process's when it
    exits; every process has one, ``cardroom_build_info``'s)."""

    def __init__(self, path: str) -> None:
        self.path = path

    def pids(self) -> list[int]:
        found = (LIVE_FILE.fullmatch(os.path.basename(f)) for f in glob.glob(f"{self.path}/*"))
        return sorted({int(m.group(1)) for m in found if m is not None})

    def collect(self) -> Iterator[Metric]:
        return iter(merge_by_pid(self.pids()))


def merge_by_pid(pids: Iterable[int]) -> list[Metric]:
    """The process metrics of each of ``pids``, one family per metric, a sample per pid."""
    merged: dict[str, Metric] = {}
    for pid in pids:
        for family in ProcessCollector(pid=lambda p=pid: p, registry=None).collect():  # type: ignore[misc]
            out = merged.setdefault(
                family.name, Metric(family.name, family.documentation, family.type)
            )
            for sample in family.samples:
                out.add_sample(sample.name, {**sample.labels, "pid": str(pid)}, sample.value)
    return list(merged.values())
