"""The embedded default: one thread in the API process does the workers' job.

It drains the RQ queue on the in-process fake Redis with a
:class:`~rq.SimpleWorker`, moves due scheduled jobs (bot thinking delays,
turn timeouts) onto the queue, and runs the reconciler every few seconds —
the same jobs the separate ``cardroom worker`` and ``cardroom scheduler``
processes run in a real deployment.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from rq import SimpleWorker
from rq.job import Job
from rq.registry import ScheduledJobRegistry
from rq.timeouts import TimerDeathPenalty

from service.runtime import Runtime

from .context import install
from .jobs import reconcile

log = logging.getLogger("cardroom.embedded")


class ThreadWorker(SimpleWorker):
    """A SimpleWorker that can live outside the main thread (no signals)."""

    death_penalty_class = TimerDeathPenalty

    def _install_signal_handlers(self) -> None:
        pass


def enqueue_due_scheduled(runtime: Runtime) -> int:
    """Move scheduled jobs whose time has come onto the queue."""
    queue = runtime.queue
    registry = ScheduledJobRegistry(queue=queue)  # type: ignore[no-untyped-call]
    due = registry.get_jobs_to_schedule(int(time.time()))
    moved = 0
    for job_id in due:
        registry.remove(job_id)
        try:
            job = Job.fetch(job_id, connection=runtime.queue_redis)
        except Exception:
            continue
        queue.enqueue_job(job)
        moved += 1
    return moved


class EmbeddedWorker:
    def __init__(
        self, runtime: Runtime, poll_s: float = 0.02, reconcile_every_s: float = 2.0
    ) -> None:
        self.runtime = runtime
        self.poll_s = poll_s
        self.reconcile_every_s = reconcile_every_s
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        install(self.runtime)
        self._thread = threading.Thread(target=self._run, name="cardroom-worker", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def drain(self) -> int:
        """Run every queued and due job now (used by the demo and tests)."""
        worked = 0
        while True:
            enqueue_due_scheduled(self.runtime)
            worker = self._worker()
            if not worker.work(burst=True, logging_level="WARNING"):
                return worked
            worked += 1

    def _worker(self) -> Any:
        from .main import log_failure

        return ThreadWorker(
            [self.runtime.queue],
            connection=self.runtime.queue_redis,
            exception_handlers=[log_failure],
        )

    def _run(self) -> None:
        last_reconcile = 0.0
        worker = self._worker()
        while not self._stop.is_set():
            try:
                enqueue_due_scheduled(self.runtime)
                worker.work(burst=True, logging_level="WARNING")
                if time.monotonic() - last_reconcile >= self.reconcile_every_s:
                    last_reconcile = time.monotonic()
                    reconcile()
            except Exception:
                log.exception("embedded worker loop failed; continuing")
            self._stop.wait(self.poll_s)
