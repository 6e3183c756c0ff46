"""An append that projects itself writes what the workers would have written.

A move that leaves the workers nothing but the fold (no deal, settlement,
bot or end of game follows, and no follow-up of its game is pending) is
projected by its own append script (:class:`service.store.Projection`). Here
whole tables of people play random legal moves through the application
service, on fakeredis and the real Redis. After every move the append
projected, its snapshot, turn marks, timer and lag are compared with what the
workers' projection (``workers.jobs.process_game``) makes of the same stream
from nothing; the moves it did not project (a hand ends, a deal is due) are
left to the workers, as before.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from service.config import load_settings
from service.engines import table
from service.runtime import Runtime
from service.store import keys
from tests.testredis import client_of
from workers import jobs
from workers.context import WorkerContext, bound, build

MOVES = 160
SEATS = {"murlan": None, "hazari": None, "azi": 3}


@pytest.fixture
def ctx(redis_client: Any) -> Iterator[WorkerContext]:
    settings = load_settings(redis_url=None, bot_delay_s=0, job_retry_backoff_s="")
    made = build(Runtime(settings, redis_client, redis_client))
    with bound(made):
        yield made


def read_model(ctx: WorkerContext, game_id: str) -> tuple[Any, ...]:
    """Everything a projection writes for a game: the snapshot, the turn marks,
    the game's timer and its projection lag."""
    redis = client_of(ctx.store)
    meta: dict[bytes, bytes] = redis.hgetall(keys.meta(game_id))
    marks = {k: v for k, v in meta.items() if k.startswith(keys.TURN_FIELD.encode())}
    due = redis.zscore(ctx.runtime.followups.due_key(game_id), game_id)
    behind = redis.zscore(keys.LAG, game_id)
    return ctx.store.load_snapshot(game_id), marks, due, behind, ctx.store.lag.read()


def forget_projection(ctx: WorkerContext, game_id: str) -> None:
    redis = client_of(ctx.store)
    redis.delete(keys.snapshot(game_id), keys.meta(game_id))
    redis.zrem(ctx.runtime.followups.due_key(game_id), game_id)
    ctx.projected.clear()


@pytest.mark.parametrize("game", sorted(SEATS))
def test_an_append_projects_itself_as_the_workers_would(ctx: WorkerContext, game: str) -> None:
    rng = random.Random(game)
    service, store, redis = ctx.service, ctx.store, client_of(ctx.store)
    projected = left = 0
    while projected + left < MOVES:  # table after table
        created = service.create_game(game, {"turn_timeout_s": 60}, SEATS[game])
        game_id = created.game_id
        for n in range(created.seat_count):
            service.take_seat(game_id, f"p{n}", None, bot=False)
        while projected + left < MOVES:
            jobs.process_game(game_id)  # whatever falls to the workers (deals), done
            state = service.load(game_id)
            if state.over:
                break
            seat = rng.choice(sorted(state.engine.to_act(state.engine_state)))
            move = rng.choice(state.engine.legal_moves(state.engine_state, seat))
            service.play_as(game_id, seat, move, state.version)
            version = store.version(game_id)
            if redis.exists(keys.followup(game_id)):
                left += 1  # the workers' to project
                assert store.snapshot_version(game_id) < version
                continue
            projected += 1
            inline = read_model(ctx, game_id)
            assert inline[0] == table.fold([s.event for s in store.read(game_id)])
            assert inline[0].version == version and inline[3] is None and inline[4] == (0, 0)
            forget_projection(ctx, game_id)
            jobs.process_game(game_id)  # the workers' projection of the same stream
            assert store.version(game_id) == version, "the workers found something to do"
            assert read_model(ctx, game_id) == inline
    assert projected > MOVES // 2 and left > 0, (projected, left)


def test_a_pending_follow_up_a_bot_to_act_or_a_deal_keeps_the_move_the_workers(
    ctx: WorkerContext,
) -> None:
    """A move is not projected by its append while a follow-up of its game is
    pending (its marker is set: that follow-up sees the move), nor when a bot
    is to act next or a deal is due: the workers have more to do than fold."""
    rng = random.Random(7)
    service, store, redis = ctx.service, ctx.store, client_of(ctx.store)
    created = service.create_game("murlan", {"turn_timeout_s": 60}, None)
    game_id = created.game_id
    for n in range(4):
        service.take_seat(game_id, f"p{n}", None, bot=n == 3)
    seen = {"pending": 0, "bot": 0, "deal": 0, "projected": 0}
    for i in range(2_000):  # until each case came up (a hand ends after 60 moves or so)
        jobs.process_game(game_id)  # deals and the bot's moves
        state = service.load(game_id)
        if state.over or all(seen.values()):
            break
        people = [s for s in state.engine.to_act(state.engine_state) if s != 3]
        seat = rng.choice(sorted(people))
        pending = i % 4 == 0
        if pending:
            redis.set(keys.followup(game_id), 1)
        move = rng.choice(state.engine.legal_moves(state.engine_state, seat))
        service.play_as(game_id, seat, move, state.version)
        after = service.load(game_id)
        marker = redis.get(keys.followup(game_id))
        behind = store.snapshot_version(game_id) < after.version
        if pending:
            seen["pending"] += 1
            assert marker == b"2" and behind
        elif 3 in after.engine.to_act(after.engine_state):
            seen["bot"] += 1
            assert marker is not None and behind
        elif table.pending(after) is not None or after.over:
            seen["deal"] += 1
            assert marker is not None and behind
        else:
            seen["projected"] += 1
            assert marker is None and not behind
    assert all(seen.values()), seen
