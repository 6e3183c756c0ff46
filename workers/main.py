"""Entry points of the worker processes: ``cardroom worker`` and ``cardroom scheduler``."""

from __future__ import annotations

import logging
import signal
import threading
import time
from typing import Any, Final

import redis

from service.config import Settings
from service.logs import setup_logging
from service.runtime import Runtime
from service.scrape import serve_worker_metrics

from .context import context, install
from .rqworker import CardroomWorker
from .timers import Ticker
from .webhooks import Sender

log = logging.getLogger("cardroom.worker")

REDIS_ERRORS: Final = (redis.ConnectionError, redis.TimeoutError)
FOLLOWUP_JOBS: Final = ("workers.jobs.process_game", "workers.jobs.drain_followups")
"""Jobs whose failure names a game whose follow-up is retried later."""


def log_failure(job: Any, exc_type: type[BaseException], exc: BaseException, tb: Any) -> bool:
    """Name the game, version and reason of a failed job, with its traceback (then
    let RQ retry or file it)."""
    meta: dict[str, Any] = dict(getattr(job, "meta", None) or {})
    args: tuple[Any, ...] = tuple(getattr(job, "args", ()) or ())
    name = getattr(job, "func_name", "")
    # a drain names the game it was serving in its meta (its arguments are its slot)
    game_id = meta.get("game_id") or (args[0] if args and name == FOLLOWUP_JOBS[0] else None)
    version = meta.get("version")
    log.error(
        "job failed",
        extra={
            "job": getattr(job, "func_name", "?"),
            "job_id": getattr(job, "id", None),
            "game_id": game_id,
            "version": version,
            "reason": f"{exc_type.__name__}: {exc}",
        },
        exc_info=(exc_type, exc, tb),
    )
    if name in FOLLOWUP_JOBS and game_id:
        _retry_later(str(game_id))
    return True


def _retry_later(game_id: str) -> None:
    """Let the failed follow-up's marker go and set the game's timer to the next
    backoff of ``CARDROOM_JOB_RETRY_BACKOFF_S`` (through the timers index, not
    RQ's scheduler); past the last one the reconciler tries again."""
    runtime = context().runtime
    try:
        wait = runtime.followups.failed(game_id, runtime.settings.retry_intervals)
    except REDIS_ERRORS:  # the marker expires and the job's watchdog timer fires
        return
    if wait is None:
        log.error("follow-up retries spent", extra={"game_id": game_id})


def run_worker(settings: Settings, *, burst: bool = False, with_scheduler: bool = True) -> int:
    """Run follow-up jobs until SIGTERM/SIGINT; with ``with_scheduler`` a thread
    also fires due timers and takes its turns at the reconciler."""
    if settings.redis_url is None:
        print("cardroom worker: set CARDROOM_REDIS_URL (the embedded `cardroom serve` has its own)")
        return 2
    setup_logging(settings.log_level)
    runtime = Runtime.from_settings(settings)
    install(runtime)
    if not burst:
        serve_worker_metrics(settings.worker_metrics_port, settings.metrics_host, "worker")
    if with_scheduler and not burst:
        Ticker(runtime).start_thread(threading.Event())
    if not burst:
        Sender(runtime).start_thread(threading.Event())  # the webhook deliveries
    while True:
        # Jobs are short and many: run them in this process (its caches stay warm)
        # rather than in a fresh interpreter per job.
        worker = CardroomWorker(
            [runtime.queue],
            connection=runtime.queue_redis,
            exception_handlers=[log_failure],
            worker_ttl=worker_ttl(settings),
        )
        try:
            worker.work(burst=burst, with_scheduler=False, logging_level=settings.log_level)
        except REDIS_ERRORS as exc:
            if burst or _stop_requested(worker):
                raise
            log.warning("worker lost Redis", extra={"reason": f"{type(exc).__name__}: {exc}"})
        else:
            if burst or _stop_requested(worker):
                return 0
            log.warning("worker left its loop after an error")
        # RQ leaves its loop on any error (a Redis restart mid-job among them) and
        # counts on a supervisor to start it again: start afresh once Redis answers.
        _await_redis(runtime.queue_redis)


def _stop_requested(worker: CardroomWorker) -> bool:
    """Whether SIGTERM or SIGINT ended the loop (the worker's own record of it)."""
    return worker.signalled


def worker_ttl(settings: Settings) -> int:
    """The RQ ``worker_ttl`` that makes an idle worker beat at least every half of
    ``CARDROOM_WORKER_HEARTBEAT_MAX_AGE_S`` (RQ beats before each blocking
    dequeue, which waits ``worker_ttl - 15`` s)."""
    return 15 + max(1, int(settings.worker_heartbeat_max_age_s / 2))


def _await_redis(client: Any, pause_s: float = 0.2, longest_s: float = 5.0) -> None:
    """Until Redis answers PING; SIGTERM and SIGINT end the process meanwhile."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    while True:
        try:
            if client.ping():
                return
        except REDIS_ERRORS:
            pass
        time.sleep(pause_s)  # nothing to block on while Redis is away
        pause_s = min(longest_s, pause_s * 2)


def run_scheduler(settings: Settings, *, interval_s: float | None = None) -> int:
    """Fire due timers and run the reconciler until SIGTERM/SIGINT (every
    worker does too; this process runs no jobs)."""
    if settings.redis_url is None:
        print("cardroom scheduler: set CARDROOM_REDIS_URL")
        return 2
    setup_logging(settings.log_level)
    if interval_s is not None:
        settings = settings.model_copy(update={"reconcile_interval_s": max(0.1, interval_s)})
    runtime = Runtime.from_settings(settings)
    install(runtime)
    serve_worker_metrics(settings.scheduler_metrics_port, settings.metrics_host, "scheduler")
    stop = threading.Event()

    def ask_stop(signum: int, frame: Any) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, ask_stop)
    signal.signal(signal.SIGINT, ask_stop)
    Ticker(runtime).run(stop)
    return 0
