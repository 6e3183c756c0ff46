"""Entry points of the worker processes: ``cardroom worker`` and ``cardroom scheduler``."""

from __future__ import annotations

import logging
from typing import Any

from rq import SimpleWorker
from rq.cron import CronScheduler

from service.config import Settings
from service.logs import setup_logging
from service.runtime import Runtime

from .context import install

log = logging.getLogger("cardroom.worker")


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
    # Jobs are short and many: run them in this process (its caches stay warm)
    # rather than in a fresh interpreter per job.
    worker = SimpleWorker(
        [runtime.queue], connection=runtime.queue_redis, exception_handlers=[log_failure]
    )
    worker.work(burst=burst, with_scheduler=with_scheduler, logging_level=settings.log_level)
    return 0


def run_scheduler(settings: Settings, *, interval_s: int = 2) -> int:
    if settings.redis_url is None:
        print("cardroom scheduler: set CARDROOM_REDIS_URL")
        return 2
    setup_logging(settings.log_level)
    runtime = Runtime.from_settings(settings)
    cron = CronScheduler(connection=runtime.queue_redis, logging_level=settings.log_level)
    cron.register(_reconcile_job(), queue_name=settings.queue_name, interval=max(1, interval_s))
    cron.start()  # type: ignore[no-untyped-call]
    return 0


def _reconcile_job() -> Any:
    from .jobs import reconcile

    return reconcile
