"""Metrics from every process, as deployed (docs/operations.md, "Metrics and logs").

- The API under gunicorn with ``deploy/gunicorn.conf.py`` and 2 processes: once
  requests have reached both (each process's own count read from its file in
  ``PROMETHEUS_MULTIPROC_DIR``), one scrape of ``/metrics`` shows their sum, the
  process metrics of both pids and ``cardroom_build_info`` once; a stale file
  left in the directory from an earlier run is gone at start. A process
  SIGKILLed and replaced by gunicorn (``child_exit``) leaves the totals as they
  were and its pid the process metrics.
- ``cardroom worker`` and ``cardroom scheduler`` serve their metrics on ports of
  their own, with the retention pass's memory ratio, which the API does not
  serve; a second worker whose port is taken says so and runs on; the API
  counts both workers by their heartbeats.
- The shipped nginx (``deploy/nginx.conf``) refuses ``/metrics`` on its public
  listener, however the path is spelled, and serves it on the internal one.
"""

from __future__ import annotations

import json
import os
import signal
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from prometheus_client.mmap_dict import MmapedDict, mmap_key
from prometheus_client.parser import text_string_to_metric_families

from service.devstack import (
    free_ports,
    nginx_missing,
    running_stack,
    start_front,
    wait_for,
)

from .faults import needs_redis_server

pytestmark = [needs_redis_server, pytest.mark.slow]

LIVEZ = {"endpoint": "meta.livez", "status": "200"}
BATCH = 16
MOST_BATCHES = 100
STALE_PID = 999_999


def samples(text: str, name: str) -> list[tuple[dict[str, str], float]]:
    return [
        (s.labels, s.value)
        for family in text_string_to_metric_families(text)
        for s in family.samples
        if s.name == name
    ]


def value(text: str, name: str, **labels: str) -> float | None:
    found = [v for got, v in samples(text, name) if labels.items() <= got.items()]
    return sum(found) if found else None


def livez_by_pid(directory: Path) -> Counter[int]:
    """Each process's own count of ``/livez`` answered, from its counter file."""
    counts: Counter[int] = Counter()
    for path in directory.glob("counter_*.db"):
        pid = int(path.stem.split("_")[1])
        for key, count, _, _ in MmapedDict.read_all_values_from_file(str(path)):
            _, name, labels, _ = json.loads(key)
            if name == "cardroom_http_requests_total" and labels == LIVEZ:
                counts[pid] += int(count)
    return counts


def stale_count(directory: Path) -> Path:
    """A counter file of a process of an earlier run: 1000 ``/livez`` answered."""
    path = directory / f"counter_{STALE_PID}.db"
    stale = MmapedDict(str(path))
    key = mmap_key(
        "cardroom_http_requests",
        "cardroom_http_requests_total",
        tuple(LIVEZ),
        tuple(LIVEZ.values()),
        "HTTP requests by endpoint and status.",
    )
    stale.write_value(key, 1000.0, 0.0)
    stale.close()
    return path


def test_a_scrape_adds_up_both_api_processes(tmp_path: Path) -> None:
    directory = tmp_path / "metrics"
    directory.mkdir()
    stale = stale_count(directory)
    with running_stack(
        workers=0, scheduler=False, api_processes=2, PROMETHEUS_MULTIPROC_DIR=str(directory)
    ) as stack:
        assert not stale.exists(), "the multiprocess directory was not cleaned at start"
        pids = set(stack.wait_api_workers(2))
        sent = 0
        fresh = httpx.Limits(max_keepalive_connections=0)
        with (
            httpx.Client(base_url=stack.api_url, timeout=10, limits=fresh) as http,
            ThreadPoolExecutor(BATCH) as pool,
        ):
            for _ in range(MOST_BATCHES):
                statuses = list(pool.map(lambda _: http.get("/livez").status_code, range(BATCH)))
                assert statuses == [200] * BATCH
                sent += BATCH
                if set(livez_by_pid(directory)) == pids:
                    break
            by_pid = livez_by_pid(directory)
            assert set(by_pid) == pids, f"{sent} requests reached only {dict(by_pid)}"
            assert sum(by_pid.values()) == sent

            text = http.get("/metrics").text
            assert value(text, "cardroom_http_requests_total", **LIVEZ) == sent
            assert value(text, "cardroom_http_request_seconds_count", endpoint="meta.livez") == sent
            rss = {
                int(labels["pid"]) for labels, _ in samples(text, "process_resident_memory_bytes")
            }
            assert rss == pids
            assert [v for _, v in samples(text, "cardroom_build_info")] == [1.0]
            assert value(text, "cardroom_redis_memory_ratio") is None  # the workers' alone

            # a process dies and gunicorn replaces it: its counts stay, its pid goes
            dead = min(pids)
            os.kill(dead, signal.SIGKILL)
            wait_for(
                lambda: dead not in stack.apis[0].children() and len(stack.apis[0].children()) == 2,
                time.monotonic() + 60,
                lambda: f"gunicorn did not replace {dead}:\n{stack.logs()}",
            )
            now = set(stack.apis[0].children())
            assert not list(directory.glob(f"gauge_live*_{dead}.db"))

            def replaced_in_scrape() -> bool:
                text = http.get("/metrics").text
                got = samples(text, "process_resident_memory_bytes")
                return {int(labels["pid"]) for labels, _ in got} == now

            # the new process writes its files once it has loaded the app
            wait_for(replaced_in_scrape, time.monotonic() + 30, lambda: f"not {now}")
            text = http.get("/metrics").text
            assert value(text, "cardroom_http_requests_total", **LIVEZ) == sent


def test_the_worker_and_the_scheduler_serve_metrics_of_their_own() -> None:
    worker_port, scheduler_port = free_ports(2)
    with running_stack(workers=0, scheduler=False, api_processes=1) as stack:
        stack.start_worker(CARDROOM_WORKER_METRICS_PORT=str(worker_port))
        stack.start_scheduler(CARDROOM_SCHEDULER_METRICS_PORT=str(scheduler_port))
        ports = (worker_port, scheduler_port)
        scraped: dict[int, str] = {}

        def retention_ran() -> bool:
            for port in ports:
                try:
                    scraped[port] = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=2).text
                except httpx.HTTPError:
                    return False
            ratios = [value(scraped[p], "cardroom_redis_memory_ratio") for p in ports]
            return any(r is not None and r > 0 for r in ratios)

        wait_for(
            retention_ran,
            time.monotonic() + 60,
            lambda: f"no memory ratio in {scraped}:\n{stack.logs()}",
            alive=stack.check_running,
        )
        for port in ports:
            text = scraped[port]
            assert value(text, "cardroom_redis_memory_ratio") is not None
            rss = samples(text, "process_resident_memory_bytes")
            assert len(rss) == 1 and "pid" not in rss[0][0]  # its own process
            assert [v for _, v in samples(text, "cardroom_build_info")] == [1.0]

        # a second worker on the first one's port: said in its log, and it works on
        second = stack.start_worker(CARDROOM_WORKER_METRICS_PORT=str(worker_port))
        wait_for(
            lambda: "metrics not served" in second.log.read_text(),
            time.monotonic() + 30,
            lambda: f"no refusal logged:\n{second.log_tail()}",
            alive=stack.check_running,
        )
        api: list[str] = []

        def worker_counted() -> bool:
            api.append(httpx.get(f"{stack.api_url}/metrics", timeout=5).text)
            return value(api[-1], "cardroom_workers") == 2.0

        wait_for(worker_counted, time.monotonic() + 30, lambda: api[-1], alive=stack.check_running)
        assert value(api[-1], "cardroom_worker_heartbeat_age_seconds") is not None
        assert value(api[-1], "cardroom_redis_memory_ratio") is None


@pytest.mark.skipif(
    nginx_missing() is not None, reason=f"{nginx_missing()}: run tests/ensure-nginx.sh"
)
def test_the_shipped_front_serves_metrics_on_its_internal_listener_only() -> None:
    with running_stack(workers=0, scheduler=False, api_processes=1, CARDROOM_PROXIES="1") as stack:
        streams_port = free_ports(1)[0]
        front = start_front(stack, stack.api_url, f"127.0.0.1:{streams_port}")
        with httpx.Client(timeout=5) as public:
            assert public.get(f"{front.url}/livez").status_code == 200
            for path in ("/metrics", "/metrics?x=1", "//metrics", "/%6Detrics", "/metrics/"):
                refused = public.get(f"{front.url}{path}")
                assert refused.status_code == 404, (path, refused.text)
                assert refused.headers["content-type"] == "application/problem+json"
                assert "cardroom_" not in refused.text
        internal = httpx.get(f"{front.internal_url}/metrics", timeout=5)
        assert internal.status_code == 200
        assert [v for _, v in samples(internal.text, "cardroom_build_info")] == [1.0]
        assert httpx.get(f"{front.internal_url}/games", timeout=5).status_code == 404
