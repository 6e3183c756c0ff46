"""Failing follow-ups are retried with backoff through the timers index (not RQ's
scheduler), then land in RQ's failed registry with a log line naming the game."""

from __future__ import annotations

import json
import logging

import pytest
from rq.job import Job
from rq.registry import FailedJobRegistry

from service.config import load_settings
from service.logs import JsonFormatter
from service.runtime import Runtime
from service.store import keys
from workers.context import install
from workers.embedded import EmbeddedWorker


def test_a_job_that_keeps_failing_is_retried_then_filed(caplog: pytest.LogCaptureFixture) -> None:
    settings = load_settings(redis_url=None, bot_delay_s=0, job_retry_backoff_s="0,0")
    runtime = Runtime.from_settings(settings)
    install(runtime)
    assert runtime.followups.request("no-such-game", 7)
    assert not runtime.followups.request("no-such-game", 7)  # coalesced: one job pending
    (job,) = runtime.queue.jobs  # a drain, with the game on its list
    assert job.func_name == "workers.jobs.drain_followups" and job.result_ttl == 0
    assert job.meta == {"slot": 0} and runtime.drains.backlog() == 1
    with caplog.at_level(logging.ERROR, logger="cardroom.worker"):
        EmbeddedWorker(runtime).drain()
    failures = [r for r in caplog.records if r.getMessage() == "job failed"]
    assert len(failures) == 3  # the first run and two retries
    last = failures[-1]
    assert last.game_id == "no-such-game"  # type: ignore[attr-defined]
    assert "GameNotFound" in last.reason or "no game" in last.reason  # type: ignore[attr-defined]
    line = json.loads(JsonFormatter().format(last))  # as the worker writes it: with its stack
    assert line["traceback"].startswith("Traceback (most recent call last):")
    assert "GameNotFound" in line["traceback"]
    assert any(r.getMessage() == "follow-up retries spent" for r in caplog.records)
    registry = FailedJobRegistry(queue=runtime.queue)  # type: ignore[no-untyped-call]
    filed = registry.get_job_ids()
    assert job.id in filed and len(filed) == 3
    for job_id in filed:  # each failed drain names the game it was serving
        meta = Job.fetch(job_id, connection=runtime.queue_redis).meta
        assert meta == {"slot": 0, "game_id": "no-such-game", "version": None}
    # Nothing is left to fire again and no marker holds the game.
    assert runtime.followups.next_due_ms() is None
    assert not runtime.redis.exists(keys.followup("no-such-game"))


def test_backoff_comes_from_the_settings() -> None:
    assert load_settings(job_retry_backoff_s="1, 5,15").retry_intervals == [1, 5, 15]
    assert load_settings(job_retry_backoff_s="").retry_intervals == []
    runtime = Runtime.from_settings(load_settings(redis_url=None, job_retry_backoff_s=""))
    assert runtime.job_options("g", 1)["result_ttl"] == 0
    assert "retry" not in runtime.job_options("g", 1)
