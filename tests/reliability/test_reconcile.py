"""The reconciler gets a game going again after its follow-up was lost, and
reaches every unfinished game however many there are.

Played in one process on fakeredis with the workers' own job functions. A
marker that expired (its job lost with a killed worker, or an API killed
between its append and the enqueue) is simulated by deleting it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from service.config import load_settings
from service.runtime import Runtime
from service.store import keys
from tests.testredis import client_of
from workers import jobs
from workers.context import WorkerContext, install
from workers.embedded import EmbeddedWorker
from workers.reconcile import reconcile_pass


@pytest.fixture
def ctx() -> Iterator[WorkerContext]:
    # Leases as long as allowed: a drain's slot taken when a game is poked must
    # not expire by itself while a test runs on a busy machine (the next pass
    # would take it for a lost drain and start another). The tests that need a
    # lease to run out give their times explicitly.
    settings = load_settings(
        redis_url=None, bot_delay_s=0, job_retry_backoff_s="", followup_lease_s=300
    )
    yield install(Runtime.from_settings(settings))


def bot_table(ctx: WorkerContext) -> str:
    """Two bots at an Azi table: only the workers can move it."""
    state = ctx.service.create_game("azi", {"buy_in": 40}, 2)
    for n in range(2):
        ctx.service.take_seat(state.game_id, f"bot{n}", None, bot=True)
    return str(state.game_id)


def lose_followup(ctx: WorkerContext, game_id: str) -> None:
    """The drain job vanished with its worker, with the game taken off the drains'
    list; its slot's lease and the game's marker expired."""
    ctx.runtime.queue.empty()  # type: ignore[no-untyped-call]
    client_of(ctx.store).lrem(ctx.runtime.drains.pending, 0, game_id)
    client_of(ctx.store).delete(keys.followup(game_id), ctx.runtime.drains.slot_key(0))


def test_a_follow_up_that_failed_for_good_is_run_again(
    ctx: WorkerContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id = bot_table(ctx)
    version = ctx.store.version(game_id)

    def redis_away(game_id: str, **_: object) -> None:
        raise ConnectionError("Redis went away")

    monkeypatch.setattr(jobs, "project_round", redis_away)
    EmbeddedWorker(ctx.runtime).drain()
    monkeypatch.undo()
    assert ctx.runtime.queue.failed_job_registry.count >= 1
    assert ctx.store.version(game_id) == version  # the bots never moved

    assert reconcile_pass()["enqueued"] == 1
    EmbeddedWorker(ctx.runtime).drain()
    assert ctx.store.version(game_id) > version, "the game is still stuck"


def test_a_follow_up_lost_with_its_worker_is_run_again(ctx: WorkerContext) -> None:
    game_id = bot_table(ctx)
    version = ctx.store.version(game_id)
    lose_followup(ctx, game_id)
    assert len(ctx.runtime.queue) == 0
    assert reconcile_pass()["enqueued"] == 1
    EmbeddedWorker(ctx.runtime).drain()
    assert ctx.store.version(game_id) > version, "the game is still stuck"


def test_a_follow_up_still_pending_is_left_alone(ctx: WorkerContext) -> None:
    game_id = bot_table(ctx)
    queued = len(ctx.runtime.queue)
    assert queued == 1  # create and seats coalesced into one job
    assert reconcile_pass()["enqueued"] == 0
    assert len(ctx.runtime.queue) == queued
    assert client_of(ctx.store).exists(keys.followup(game_id))


def test_a_projected_game_whose_timer_was_lost_is_found(ctx: WorkerContext) -> None:
    ctx.runtime.settings.bot_delay_s = 30.0  # the bots wait on their timers
    game_id = bot_table(ctx)
    EmbeddedWorker(ctx.runtime).drain()
    assert ctx.store.snapshot_version(game_id) == ctx.store.version(game_id)
    due = ctx.runtime.followups.due_key(game_id)
    assert client_of(ctx.store).zscore(due, game_id) is not None  # a bot's thinking delay
    client_of(ctx.store).zrem(due, game_id)
    assert reconcile_pass()["enqueued"] == 1


def test_a_timer_whose_claimer_died_fires_again(ctx: WorkerContext) -> None:
    followups = ctx.runtime.followups
    game_id = bot_table(ctx)
    lose_followup(ctx, game_id)
    now_ms = followups.clock.now_ms  # Redis's time, the timers' clock
    followups.finish_round(game_id, 0, "", now_ms() - 1)  # due now (the stream moved on)
    claimed = followups.claim_due()
    assert claimed == [game_id]
    # The claimer dies here, before poking the game: the entry is back a lease later.
    assert followups.claim_due() == []
    later = now_ms() + followups.lease_ms + 1
    assert followups.claim_due(later) == [game_id]
    assert followups.fire_due(later + followups.lease_ms + 1) == [game_id]
    assert len(ctx.runtime.queue) == 1


def test_one_sweep_reaches_a_stuck_game_behind_six_hundred_others(
    ctx: WorkerContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stuck game is the oldest: a scan of the newest few hundred never saw it."""
    stuck = bot_table(ctx)
    lose_followup(ctx, stuck)
    monkeypatch.setattr(ctx.service.repository, "followup", lambda game_id, version: None)
    monkeypatch.setattr(ctx.runtime, "append_dispatch", lambda: None)  # nor on the list
    made = [ctx.service.create_game("hazari", None, None).game_id for _ in range(600)]
    monkeypatch.undo()
    for game_id in made:
        jobs.project(game_id)
        client_of(ctx.store).delete(keys.followup(game_id))
        ctx.store.set_status(game_id, "playing")
    batch = 100
    passes = []
    while not passes or not passes[-1]["swept"]:
        passes.append(reconcile_pass(batch))
        assert len(passes) <= math.ceil(601 / batch) + 1
    assert sum(p["scanned"] for p in passes) == 601
    assert sum(p["enqueued"] for p in passes) == 1
    queued = [job.func_name for job in ctx.runtime.queue.jobs]
    assert queued.count("workers.jobs.drain_followups") == 1, queued  # a drain
    assert client_of(ctx.store).lrange(ctx.runtime.drains.pending, 0, -1) == [stuck.encode()]
    state = {
        k.decode(): v.decode() for k, v in client_of(ctx.store).hgetall(keys.reconciler()).items()
    }
    assert state["last_found"] == "1" and state["last_checked"] == "601"


def test_a_game_waiting_on_a_timer_is_not_taken_for_dead(
    ctx: WorkerContext, caplog: pytest.LogCaptureFixture
) -> None:
    """Normal play: the follow-up has finished and the game waits for a bot's
    thinking delay. The reconciler must leave it alone, and say nothing.

    (The reconciler once judged such a game by its last RQ job: a bot was to
    act and the job of this version had FINISHED, so the job was taken for a
    dead one and run again, with a warning, on every pass. The timers index
    now tells it that the game waits for a timer.)"""
    ctx.runtime.settings.bot_delay_s = 30.0
    game_id = bot_table(ctx)
    EmbeddedWorker(ctx.runtime).drain()
    version = ctx.store.version(game_id)
    assert not client_of(ctx.store).exists(keys.followup(game_id))  # the job finished
    with caplog.at_level("DEBUG", logger="cardroom"):
        for _ in range(3):
            assert reconcile_pass()["enqueued"] == 0
    assert len(ctx.runtime.queue) == 0
    assert ctx.store.version(game_id) == version
    assert [r.getMessage() for r in caplog.records if r.name == "cardroom.reconcile"] == []


class SteppedPipeline:
    """A pipeline whose commands run one at a time on ``client``, with
    ``between()`` run once after command number ``after``: another process
    acting while the reconciler's reads are on their way."""

    def __init__(self, client: Any, after: int, between: Callable[[], None]) -> None:
        self.client, self.after, self.between = client, after, between
        self.calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []

    def __getattr__(self, name: str) -> Callable[..., None]:
        return lambda *args, **kwargs: self.calls.append((name, args, kwargs))

    def execute(self) -> list[Any]:
        replies = []
        for i, (name, args, kwargs) in enumerate(self.calls):
            replies.append(getattr(self.client, name)(*args, **kwargs))
            if i == self.after:
                self.between()
        return replies


@pytest.mark.parametrize("after", range(4))
def test_a_follow_up_finishing_during_the_reconcilers_read_is_not_taken_for_lost(
    ctx: WorkerContext, monkeypatch: pytest.MonkeyPatch, after: int
) -> None:
    """Whenever the job projecting a game and letting its marker go runs
    between the reconciler's reads of that game, the game is not reported
    behind with no follow-up (which would poke it and log a warning)."""
    ctx.runtime.settings.bot_delay_s = 30.0  # the job projects, then waits on a timer
    followups = ctx.runtime.followups
    game_id = bot_table(ctx)
    ((version, projected, marked, _),) = followups.pending([game_id])
    assert projected < version and marked  # its follow-up is queued, not run yet
    real = followups.redis

    class Client:
        armed = True

        def pipeline(self, transaction: bool = True) -> Any:
            if not Client.armed:
                return real.pipeline(transaction=transaction)
            Client.armed = False
            return SteppedPipeline(real, after, EmbeddedWorker(ctx.runtime).drain)

        def __getattr__(self, name: str) -> Any:
            return getattr(real, name)

    monkeypatch.setattr(followups, "redis", Client())
    ((version, projected, marked, _),) = followups.pending([game_id])
    assert not Client.armed and ctx.store.snapshot_version(game_id) == version  # it ran
    assert marked or projected >= version, "a finished follow-up was taken for a lost one"
