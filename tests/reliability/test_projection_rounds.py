"""A follow-up round reads only what its worker has not projected yet, and
never skips what it has not written or what another worker wrote since.

Each worker process remembers the last state it projected of each game
(:attr:`workers.context.WorkerContext.projected`) and folds only the events after it (or after
a newer snapshot another worker saved). Played in one process on fakeredis
with the workers' own job functions.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import redis

from service.config import load_settings
from service.runtime import Runtime
from service.store import keys
from tests.testredis import client_of
from workers import jobs
from workers.context import WorkerContext, install


@pytest.fixture
def ctx() -> Iterator[WorkerContext]:
    # the moves are the workers' to project (not their own appends'), as on a cluster
    settings = load_settings(
        redis_url=None, bot_delay_s=0, job_retry_backoff_s="", project_on_append=False
    )
    yield install(Runtime.from_settings(settings))


def human_table(ctx: WorkerContext) -> tuple[str, list[str]]:
    """A Murlan table of four people, dealt: only their moves change it."""
    state = ctx.service.create_game("murlan", {"turn_timeout_s": 0}, None)
    tokens = [
        ctx.service.take_seat(state.game_id, f"p{n}", None, bot=False).token for n in range(4)
    ]
    jobs.process_game(state.game_id)  # deals
    return str(state.game_id), tokens


def move(ctx: WorkerContext, game_id: str) -> None:
    state = ctx.service.load(game_id)
    (seat,) = state.engine.to_act(state.engine_state)
    legal = state.engine.legal_moves(state.engine_state, seat)
    ctx.service.play_as(game_id, seat, legal[0], state.version)


def turn_marks(ctx: WorkerContext, game_id: str) -> dict[bytes, bytes]:
    meta: dict[bytes, bytes] = client_of(ctx.store).hgetall(keys.meta(game_id))
    return {k: v for k, v in meta.items() if k.startswith(b"turn:")}


def test_a_round_whose_writes_failed_is_not_remembered_as_projected(
    ctx: WorkerContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id, _ = human_table(ctx)
    jobs.process_game(game_id)
    before = ctx.store.snapshot_version(game_id)
    move(ctx, game_id)
    client_of(ctx.store).delete(keys.meta(game_id))  # so the round must write the turn marks again

    real = jobs.Writes.send_with_finish

    def redis_away(self: jobs.Writes, *args: Any) -> bool:
        raise redis.ConnectionError("Redis went away")

    monkeypatch.setattr(jobs.Writes, "send_with_finish", redis_away)
    with pytest.raises(redis.ConnectionError):
        jobs.process_game(game_id)
    monkeypatch.setattr(jobs.Writes, "send_with_finish", real)
    assert ctx.store.snapshot_version(game_id) == before
    kept = ctx.projected.get(game_id)
    assert kept is None or kept.version == before

    jobs.process_game(game_id)  # the retry folds the move again and writes what it implies
    assert ctx.store.snapshot_version(game_id) == ctx.store.version(game_id)
    assert turn_marks(ctx, game_id), "the turn marks of the folded move were never written"


def test_a_newer_snapshot_from_another_worker_is_built_upon(ctx: WorkerContext) -> None:
    game_id, _ = human_table(ctx)
    jobs.process_game(game_id)
    stale = ctx.projected.get(game_id)
    assert stale is not None
    for _ in range(3):
        move(ctx, game_id)
    jobs.process_game(game_id)  # "another worker": projects and saves the newer snapshot
    newer = ctx.projected.get(game_id)
    assert newer is not None and newer.version == stale.version + 3
    ctx.projected.drop(game_id)
    ctx.projected.put(stale)  # this worker last saw the older state
    move(ctx, game_id)
    state = jobs.project(game_id)
    assert state.version == ctx.store.version(game_id)
    assert state == ctx.service.load(game_id)
