"""The reconciler gets a game going again after its follow-up job was lost for good.

Follow-ups are enqueued under one id per game and version, and RQ refuses to
enqueue an id that exists. A follow-up that failed for good (Redis away for
longer than its retries) stays in the failed registry for days, and one whose
worker was SIGKILLed mid-job stays "started" until RQ's maintenance notices:
in both cases a game that waits for the workers (bots to move, a deal) would
wait for ever, because the reconciler's enqueue of that very id was refused
without a word. Played here in one process on fakeredis, with the workers'
own job functions.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from rq.job import Job, JobStatus

from service.config import load_settings
from service.runtime import Runtime
from workers import jobs
from workers.context import WorkerContext, install
from workers.embedded import EmbeddedWorker


@pytest.fixture
def ctx() -> Iterator[WorkerContext]:
    settings = load_settings(redis_url=None, bot_delay_s=0, job_retry_backoff_s="")
    yield install(Runtime.from_settings(settings))


def bot_table(ctx: WorkerContext) -> str:
    """Two bots at an Azi table: only the workers can move it."""
    state = ctx.service.create_game("azi", {"buy_in": 40}, 2)
    for n in range(2):
        ctx.service.take_seat(state.game_id, f"bot{n}", None, bot=True)
    return str(state.game_id)


def followup(ctx: WorkerContext, game_id: str) -> Job:
    (job,) = [j for j in ctx.runtime.queue.jobs if j.args == (game_id,)][-1:]
    return job


def test_a_follow_up_that_failed_for_good_is_run_again(
    ctx: WorkerContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id = bot_table(ctx)
    version = ctx.store.version(game_id)

    def redis_away(game_id: str) -> None:
        raise ConnectionError("Redis went away")

    monkeypatch.setattr(jobs, "project", redis_away)
    EmbeddedWorker(ctx.runtime).drain()
    monkeypatch.undo()
    assert ctx.runtime.queue.failed_job_registry.count >= 1
    assert ctx.store.version(game_id) == version  # the bots never moved

    assert jobs.reconcile()["enqueued"] == 1
    EmbeddedWorker(ctx.runtime).drain()
    assert ctx.store.version(game_id) > version, "the game is still stuck"


def test_a_follow_up_abandoned_by_a_killed_worker_is_run_again(ctx: WorkerContext) -> None:
    game_id = bot_table(ctx)
    version = ctx.store.version(game_id)
    # A worker took the job and was SIGKILLed: the job stays "started", off the queue.
    job = followup(ctx, game_id)
    ctx.runtime.queue.empty()  # type: ignore[no-untyped-call]
    job.set_status(JobStatus.STARTED)
    job.started_at = datetime.now(UTC) - timedelta(seconds=jobs.ABANDONED_AFTER_S + 1)
    job.save()
    assert len(ctx.runtime.queue) == 0

    jobs.reconcile()
    EmbeddedWorker(ctx.runtime).drain()
    assert ctx.store.version(game_id) > version, "the game is still stuck"


def test_a_follow_up_still_running_or_queued_is_left_alone(ctx: WorkerContext) -> None:
    game_id = bot_table(ctx)
    queued = len(ctx.runtime.queue)
    jobs.reconcile()
    assert len(ctx.runtime.queue) == queued  # already queued: nothing added
    job = followup(ctx, game_id)
    ctx.runtime.queue.empty()  # type: ignore[no-untyped-call]
    job.set_status(JobStatus.STARTED)
    job.started_at = datetime.now(UTC)  # just started by a live worker
    job.save()
    jobs.reconcile()
    assert len(ctx.runtime.queue) == 0
    assert Job.fetch(job.id, connection=ctx.runtime.queue_redis).get_status() == JobStatus.STARTED
