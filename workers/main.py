"""Entry points of the worker processes: ``cardroom worker`` and ``cardroom scheduler``."""

from __future__ import annotations

import logging
import signal
import time
from typing import Any, Final

import redis
from rq import SimpleWorker
from rq.cron import CronScheduler

from service.config import Settings
from service.logs import setup_logging
from service.runtime import Runtime

from .context import install

log = logging.getLogger("cardroom.worker")

REDIS_ERRORS: Final = (redis.ConnectionError, redis.TimeoutError)


def log_failure(job: Any, exc_type: type[BaseException], exc: BaseException, tb: Any) -> bool:
    """Name the game, version and reason of a failed job (then let RQ retry or file it)."""
    meta: dict[str, Any] = dict(getattr(job, "meta", None) or {})
    args: tuple[Any, ...] = tuple(getattr(job, "args", ()) or ())
    game_id = meta.get("game_id", args[0] if args else None)
    version = meta.get("version")
    log.error(
        "job failed",
        extra={
            "job": getattr(job, "func_name", "?"),
            "job_id": getattr(job, "id", None),
            "game_id": game_id,
            "version": version,
            "reason": f"{exc_type.__name__}: {exc}",
            "retries_left": getattr(job, "retries_left", None),
        },
    )
    return True


def run_worker(settings: Settings, *, burst: bool = False, with_scheduler: bool = True) -> int:
    if settings.redis_url is None:
        print("cardroom worker: set CARDROOM_REDIS_URL (the embedded `cardroom serve` has its own)")
        return 2
    setup_logging(settings.log_level)
    runtime = Runtime.from_settings(settings)
    install(runtime)
    while True:
        # Jobs are short and many: run them in this process (its caches stay warm)
        # rather than in a fresh interpreter per job.
        worker = SimpleWorker(
            [runtime.queue], connection=runtime.queue_redis, exception_handlers=[log_failure]
        )
        try:
            worker.work(
                burst=burst, with_scheduler=with_scheduler, logging_level=settings.log_level
            )
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


def _stop_requested(worker: Any) -> bool:
    """Whether SIGTERM or SIGINT ended the loop (RQ's own record of it)."""
    return bool(worker._stop_requested or worker._shutdown_requested_date is not None)


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


def run_scheduler(settings: Settings, *, interval_s: int = 2) -> int:
    if settings.redis_url is None:
        print("cardroom scheduler: set CARDROOM_REDIS_URL")
        return 2
    setup_logging(settings.log_level)
    runtime = Runtime.from_settings(settings)
    while True:
        cron = CronScheduler(connection=runtime.queue_redis, logging_level=settings.log_level)
        cron.register(_reconcile_job(), queue_name=settings.queue_name, interval=max(1, interval_s))
        try:
            cron.start()  # type: ignore[no-untyped-call]
        except REDIS_ERRORS as exc:  # it returns only when asked to stop
            log.warning("scheduler lost Redis", extra={"reason": f"{type(exc).__name__}: {exc}"})
            _await_redis(runtime.queue_redis)
            continue
        return 0


def _reconcile_job() -> Any:
    from .jobs import reconcile

    return reconcile
