"""The embedded default: one thread in the API process does the workers' job.

It runs the follow-up jobs queued on the in-process fake Redis with a
:class:`~rq.SimpleWorker`, fires due timers (bot thinking delays, turn
timeouts, retries) and takes the reconciler's passes — what the separate
``cardroom worker`` and ``cardroom scheduler`` processes do in a real
deployment. Idle, it sleeps until the next timer falls due, the next
reconciler pass, or an enqueue wakes it (:attr:`Runtime.wake`).
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from rq.timeouts import TimerDeathPenalty

from service.runtime import Runtime

from .context import WorkerContext, bound, build, use
from .rqworker import CardroomWorker
from .timers import Ticker
from .webhooks import Sender, deliver_due

log = logging.getLogger("cardroom.embedded")

SHORTEST_WAIT_S = 0.005


class ThreadWorker(CardroomWorker):
    """cardroom's worker, living outside the main thread: no signals, and no
    commands channel (it is stopped through :meth:`EmbeddedWorker.stop`). Its
    loop calls ``work(burst=True)`` again and again, and each call would
    otherwise subscribe a commands thread and stop it again."""

    death_penalty_class = TimerDeathPenalty

    def _install_signal_handlers(self) -> None:
        pass

    def subscribe(self) -> None:
        pass

    def unsubscribe(self) -> None:
        pass


class EmbeddedWorker:
    def __init__(self, runtime: Runtime, reconcile_every_s: float | None = None) -> None:
        self.runtime = runtime
        self.reconcile_every_s = reconcile_every_s or runtime.settings.reconcile_interval_s
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._context: WorkerContext | None = None
        self.last_beat: float | None = None
        """When (``time.monotonic()``) the loop last went round: its heartbeat,
        which ``/readyz`` reads (:mod:`service.heartbeats`)."""
        # Its drains do not wait for more: this thread also fires the timers.
        runtime.drains.linger_s = 0.0

    @property
    def context(self) -> WorkerContext:
        """The context this worker's jobs run in (bound to its thread, and to
        :meth:`drain`'s caller while it drains)."""
        if self._context is None:
            self._context = build(self.runtime)
        return self._context

    def start(self) -> None:
        use(self.context)
        self.runtime.local_worker = self
        self._thread = threading.Thread(target=self._run, name="cardroom-worker", daemon=True)
        self._thread.start()
        Sender(self.runtime).start_thread(self._stop)  # the webhook deliveries

    def heartbeat_age_s(self) -> float | None:
        """Seconds since the loop last went round; ``None`` if it never did or
        its thread has ended."""
        if self.last_beat is None or self._thread is None or not self._thread.is_alive():
            return None
        return time.monotonic() - self.last_beat

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        self.runtime.wake.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def drain(self) -> int:
        """Run every queued job and every timer due now (used by the demo and
        tests); how many jobs ran."""
        worked = 0
        worker = self._worker()
        with bound(self.context):
            while True:
                fired = len(self.runtime.followups.fire_due()) + deliver_due(self.runtime)
                if worker.work(burst=True, logging_level="WARNING"):
                    worked += 1
                elif not fired:
                    return worked

    def _worker(self) -> Any:
        from .main import log_failure

        return ThreadWorker(
            [self.runtime.queue],
            connection=self.runtime.queue_redis,
            exception_handlers=[log_failure],
        )

    def _run(self) -> None:
        with bound(self.context):
            self._loop()

    def _loop(self) -> None:
        ticker = Ticker(self.runtime)
        ticker.reconcile_every_s = self.reconcile_every_s
        worker = self._worker()
        wake = self.runtime.wake
        beat_s = self.runtime.settings.worker_heartbeat_max_age_s / 2
        while not self._stop.is_set():
            self.last_beat = time.monotonic()
            # at least twice within CARDROOM_WORKER_HEARTBEAT_MAX_AGE_S, idle or not
            wait_s = min(self.reconcile_every_s, beat_s)
            try:
                ticker.tick()
                worker.work(burst=True, logging_level="WARNING")
                due_in = self.runtime.followups.next_due_in_ms()  # by Redis's clock
                if due_in is not None:
                    wait_s = min(wait_s, due_in / 1000)
            except Exception:
                log.exception("embedded worker loop failed; continuing")
            if wake.wait(max(SHORTEST_WAIT_S, wait_s)):
                wake.clear()
