"""Whether the workers are alive, from their heartbeats: for ``/readyz`` of the
API and for ``cardroom worker --check``.

A ``cardroom worker`` is an RQ worker: RQ writes its ``last_heartbeat`` before
each blocking wait for a job and after each job (read here with RQ's public
``Worker.all``). A worker stuck in a job, or gone, stops beating. The worker
thread of ``cardroom serve``'s embedded mode is not an RQ worker between its
passes: its heartbeat is its loop going round (:attr:`Runtime.local_worker`).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from rq import Worker

from .runtime import Runtime


def beats(runtime: Runtime) -> list[tuple[str, float]]:
    """(host name, seconds since its last heartbeat) of every RQ worker
    registered on the runtime's queue."""
    now = datetime.now(UTC)
    out = []
    for worker in Worker.all(connection=runtime.queue_redis, queue=runtime.queue):
        beat: Any = worker.last_heartbeat
        if beat is None:
            continue
        if beat.tzinfo is None:  # RQ's times are UTC
            beat = beat.replace(tzinfo=UTC)
        out.append((str(worker.hostname or ""), (now - beat).total_seconds()))
    return out


def fresh_workers(runtime: Runtime, hostname: str | None = None) -> int:
    """How many workers (of ``hostname`` only, if given) beat within
    ``CARDROOM_WORKER_HEARTBEAT_MAX_AGE_S``: the process's own worker thread
    if it has one, else the RQ workers on its queue. Raises when the queue's
    Redis does not answer."""
    max_age_s = runtime.settings.worker_heartbeat_max_age_s
    local = runtime.local_worker
    if local is not None:
        age = local.heartbeat_age_s()
        return int(age is not None and age <= max_age_s)
    return sum(
        1
        for host, age in beats(runtime)
        if age <= max_age_s and (hostname is None or host == hostname)
    )
