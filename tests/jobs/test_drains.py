"""Follow-ups served by drain jobs: a game goes on the drains' list, a few leased
slots bound the drain jobs at once, a slot is freed only while the list is empty.
Nothing is lost: not a game added while a drain ends, not a game behind a
failing one, not a game whose drain lost its slot."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
import redis

from service.config import load_settings
from service.runtime import Runtime
from service.store import EventStore
from service.store.drains import LOST, Drains
from tests.store.helpers import created, timeouts
from tests.testredis import client_of
from workers import jobs
from workers.context import WorkerContext, install
from workers.embedded import EmbeddedWorker
from workers.reconcile import reconcile_pass


def drains_on(client: Any, slots: int = 1, linger_s: float = 0.0) -> tuple[Drains, list[Any]]:
    """Drains on ``client`` whose enqueues are recorded instead of queued."""
    enqueued: list[tuple[int, str]] = []
    drains = Drains(client, "q", lambda: slots, 5.0, linger_s, lambda s, t: enqueued.append((s, t)))
    return drains, enqueued


def test_a_game_added_while_a_drain_ends_is_taken_not_stranded(redis_client: Any) -> None:
    drains, enqueued = drains_on(redis_client)
    assert drains.dispatch("a") == 0  # the slot was free: a drain is enqueued for it
    ((slot, token),) = enqueued
    assert drains.take(slot, token) == "a"
    assert drains.take(slot, token) is None  # the list is empty ...
    assert drains.dispatch("b") is None  # ... and a move comes in: the drain holds the slot
    assert len(enqueued) == 1
    assert drains.release(slot, token) is False  # so it may not end yet
    assert drains.take(slot, token) == "b"
    assert drains.release(slot, token) is True
    assert drains.dispatch("c") == 0 and len(enqueued) == 2  # the slot is free again


def test_the_slots_bound_the_drains_running_at_once(redis_client: Any) -> None:
    drains, enqueued = drains_on(redis_client, slots=3)
    taken = [drains.dispatch(f"g{i}") for i in range(5)]
    assert taken == [0, 1, 2, None, None]
    assert drains.backlog() == 5
    # The list is served in the order the games came, by whichever drain takes next.
    served = [drains.take(slot, token) for slot, token in enqueued[:2] for _ in range(2)]
    assert served == ["g0", "g1", "g2", "g3"]
    assert drains.dispatch() is None  # nothing to start: every slot is held


def test_a_drain_whose_lease_ran_out_stops_and_its_games_are_served(redis_client: Any) -> None:
    drains, enqueued = drains_on(redis_client)
    drains.dispatch("a")
    ((slot, old),) = enqueued
    redis_client.delete(drains.slot_key(slot))  # its worker died; the lease ran out
    assert drains.dispatch() == 0  # the reconciler's kick: a fresh drain for the list
    new = enqueued[-1][1]
    assert drains.take(slot, old) is LOST  # the old drain, were it only slow, stops
    assert drains.take(slot, new) == "a"
    assert drains.release(slot, old) is True  # and cannot free the new one's slot
    assert drains.take(slot, new) is None


def test_the_slot_tokens_of_appends_are_unique_across_processes(redis_client: Any) -> None:
    drains, _ = drains_on(redis_client)
    mine = {drains.inline().token for _ in range(1_000)}
    assert len(mine) == 1_000
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # a forked child (as gunicorn's workers are) draws its own prefix
        os.close(read)
        os.write(write, " ".join(drains.inline().token for _ in range(1_000)).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        theirs = set(pipe.read().split())
    os.waitpid(pid, 0)
    assert len(theirs) == 1_000 and not mine & theirs


def test_a_kick_with_nothing_waiting_starts_nothing(redis_client: Any) -> None:
    drains, enqueued = drains_on(redis_client)
    assert drains.dispatch() is None and enqueued == []


@pytest.fixture
def ctx() -> Iterator[WorkerContext]:
    settings = load_settings(redis_url=None, bot_delay_s=0, job_retry_backoff_s="0")
    yield install(Runtime.from_settings(settings))


QUICK: dict[str, dict[str, Any]] = {"azi": {"buy_in": 40}}
"""Options of a match bots play out in a few hands (the drains, not the game, are tested)."""


def bot_table(ctx: WorkerContext, game: str = "azi") -> str:
    state = ctx.service.create_game(game, QUICK.get(game), 2 if game == "azi" else None)
    for n in range(state.seat_count):
        ctx.service.take_seat(state.game_id, f"bot{n}", None, bot=True)
    return str(state.game_id)


def test_many_games_are_served_by_one_drain_to_their_latest_version(ctx: WorkerContext) -> None:
    games = [bot_table(ctx) for _ in range(6)]
    assert len(ctx.runtime.queue) == 1  # six games, one drain job
    assert ctx.runtime.drains.backlog() == 6
    ran = EmbeddedWorker(ctx.runtime).drain()
    assert ran < len(games)
    for game_id in games:
        state = ctx.service.load(game_id)
        assert state.over, game_id  # the bots played every match out
        assert ctx.store.snapshot_version(game_id) == ctx.store.version(game_id)
    assert ctx.runtime.drains.backlog() == 0
    assert not ctx.runtime.queue_redis.exists(ctx.runtime.drains.slot_key(0))


def test_a_failing_follow_up_does_not_hold_up_the_games_behind_it(
    ctx: WorkerContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    ctx.runtime.settings.job_retry_backoff_s = "60"  # its retry waits on its timer
    broken = bot_table(ctx, "hazari")
    fine = bot_table(ctx)
    assert ctx.runtime.drains.backlog() == 2
    real = jobs.process_game

    def fails_for_one(game_id: str) -> Any:
        if game_id == broken:
            raise RuntimeError("a bug in this game's follow-up")
        return real(game_id)

    monkeypatch.setattr(jobs, "process_game", fails_for_one)
    EmbeddedWorker(ctx.runtime).drain()
    assert ctx.service.load(fine).over  # served by the drain that took over
    assert ctx.store.snapshot_version(fine) == ctx.store.version(fine)
    (failed,) = ctx.runtime.queue.failed_job_registry.get_job_ids()
    assert ctx.runtime.queue.fetch_job(failed).meta["game_id"] == broken
    # Its retry is set on the timers index (the backoff), as for any failed follow-up.
    assert client_of(ctx.store).zscore(ctx.runtime.followups.due_key(broken), broken) is not None


def test_the_reconciler_starts_a_drain_for_games_whose_drain_was_lost(
    ctx: WorkerContext,
) -> None:
    game_id = bot_table(ctx)
    version = ctx.store.version(game_id)
    # The drain's job vanished with its worker and its slot's lease ran out; the game
    # is still on the list and its marker still alive.
    ctx.runtime.queue.empty()  # type: ignore[no-untyped-call]
    ctx.runtime.queue_redis.delete(ctx.runtime.drains.slot_key(0))
    assert ctx.runtime.drains.backlog() == 1
    assert reconcile_pass()["drain_started"] is True
    assert len(ctx.runtime.queue) == 1
    EmbeddedWorker(ctx.runtime).drain()
    assert ctx.store.version(game_id) > version
    assert reconcile_pass()["drain_started"] is False  # nothing waits: nothing started


@pytest.mark.redis
def test_a_lingering_drain_takes_the_next_game_without_a_new_job(
    real_redis: redis.Redis,
) -> None:
    """Once the list is empty a drain waits a moment: a move in that moment is
    served by it, with no job and no slot taken for it."""
    drains, enqueued = drains_on(real_redis, linger_s=5.0)
    drains.dispatch("a")
    ((slot, token),) = enqueued
    assert drains.take(slot, token) == "a"
    assert drains.take(slot, token) is None
    got: list[str | None] = []
    waiter = threading.Thread(target=lambda: got.append(drains.wait(drains.linger_s)))
    waiter.start()
    while not any(
        c.get("cmd") == "brpop" for c in real_redis.client_list()
    ):  # the drain is blocked on the list
        assert waiter.is_alive()
    assert drains.dispatch("b") is None  # the slot is held: no new drain
    waiter.join(10)
    assert got == ["b"] and len(enqueued) == 1
    assert drains.release(slot, token) is True


@pytest.mark.redis
def test_the_in_process_worker_s_drains_do_not_wait(real_redis: redis.Redis) -> None:
    """``cardroom serve`` on its own redis-server: its one worker thread also fires the
    timers, so its drains end once the list is empty instead of waiting for more."""
    url = real_redis.connection_pool.connection_kwargs
    runtime = Runtime.from_settings(
        load_settings(redis_url=f"redis://{url['host']}:{url['port']}/{url['db']}")
    )
    assert runtime.drains.linger_s == 0.2  # a worker process's drains wait a moment
    EmbeddedWorker(runtime)
    assert runtime.drains.linger_s == 0.0


class ScriptedDrains:
    """A drain's list played from a script: ``first`` is on it when the drain
    starts, ``arrivals`` come one by one while it waits; every call is recorded."""

    linger_s = 0.2
    lease_ms = 5_000

    def __init__(self, first: str, arrivals: list[str]) -> None:
        self.listed = [first]
        self.arrivals = arrivals
        self.calls: list[str] = []

    def take(self, slot: int, token: str) -> str | None:
        self.calls.append("take")
        return self.listed.pop(0) if self.listed else None

    def wait(self, timeout_s: float) -> str | None:
        self.calls.append("wait")
        return self.arrivals.pop(0) if self.arrivals else None

    def release(self, slot: int, token: str) -> bool:
        self.calls.append("release")
        return not self.listed

    def hand_over(self, slot: int, token: str) -> None:
        self.calls.append("hand_over")


def drain_with_clock(
    ctx: WorkerContext, monkeypatch: pytest.MonkeyPatch, drains: ScriptedDrains, step_s: float
) -> list[str]:
    """Run a drain job on ``drains``; each follow-up takes ``step_s`` on a fake
    clock. The games it served, in order."""
    now = [0.0]
    served: list[str] = []

    def process(game_id: str) -> None:
        served.append(game_id)
        now[0] += step_s

    monkeypatch.setattr(ctx.runtime, "_drains", drains)
    monkeypatch.setattr(jobs, "process_game", process)
    monkeypatch.setattr(jobs, "time", SimpleNamespace(monotonic=lambda: now[0]))
    jobs.drain_followups(0, "token")
    return served


def test_a_lingering_drain_waits_for_game_after_game_without_taking_in_between(
    ctx: WorkerContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Moves that come one at a time while a drain lingers cost it one blocking
    read each: no ``take`` in between while its slot's lease is fresh."""
    drains = ScriptedDrains("a", ["b", "c", "d"])
    assert drain_with_clock(ctx, monkeypatch, drains, step_s=0.01) == ["a", "b", "c", "d"]
    assert drains.calls == ["take", "take", "wait", "wait", "wait", "wait", "release"]


def test_a_drain_serving_arrivals_renews_its_lease_in_time(
    ctx: WorkerContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past half its slot's lease a lingering drain takes (which renews the lease)
    before it waits again."""
    drains = ScriptedDrains("a", ["b", "c"])
    drains.lease_ms = 2_000  # half of it, 1 s after the last take, passes while c is served
    assert drain_with_clock(ctx, monkeypatch, drains, step_s=0.6) == ["a", "b", "c"]
    assert drains.calls == ["take", "take", "wait", "wait", "take", "wait", "release"]


@pytest.fixture(params=["fake", pytest.param("real", marks=pytest.mark.redis)])
def standalone(request: pytest.FixtureRequest) -> Any:
    """A standalone Redis (fakeredis, then the real one): where the queue may share
    the store's Redis."""
    return request.getfixturevalue(f"{request.param}_redis")


def test_an_append_puts_its_game_on_the_drains_list_in_its_own_script(standalone: Any) -> None:
    """Where the queue shares the store's Redis, an append that sets its game's marker
    anew does the dispatch itself: the game goes on the list and a free slot is
    taken (one drain job to enqueue), with no round trip of its own; appends
    while the marker is held, or with every slot taken, start nothing."""
    store = EventStore(standalone)
    drains, enqueued = drains_on(standalone, slots=2)
    first = store.append("g1", [created("g1")], 0, dispatch=drains.inline())
    assert first.fresh and first.drain_slot == 0
    assert standalone.lrange(drains.pending, 0, -1) == [b"g1"]
    again = store.append("g1", timeouts(1), 1, dispatch=drains.inline())
    assert not again.fresh and again.drain_slot is None  # the follow-up pending sees it
    assert standalone.llen(drains.pending) == 1
    second = store.append("g2", [created("g2")], 0, dispatch=drains.inline())
    assert second.drain_slot == 1
    third = store.append("g3", [created("g3")], 0, dispatch=drains.inline())
    assert third.fresh and third.drain_slot == -1  # both slots held: the drains serve it
    assert standalone.lrange(drains.pending, 0, -1) == [b"g3", b"g2", b"g1"]
    without = store.append("g4", [created("g4")], 0)
    assert without.fresh and without.drain_slot is None  # the caller dispatches
    assert standalone.llen(drains.pending) == 3
    assert enqueued == []  # enqueueing the drain job is left to the caller


def test_a_move_s_follow_up_needs_no_dispatch_of_its_own(
    ctx: WorkerContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The embedded runtime shares one Redis: a game's appends put it on the list
    themselves, and only the drain job of the slot taken is enqueued."""
    assert ctx.runtime.dispatch_on_append

    def no_dispatch(game_id: str = "") -> None:
        raise AssertionError("the append dispatched the follow-up itself")

    with monkeypatch.context() as m:
        m.setattr(ctx.runtime.drains, "dispatch", no_dispatch)
        game_id = bot_table(ctx)
    assert ctx.runtime.drains.backlog() == 1 and len(ctx.runtime.queue) == 1
    EmbeddedWorker(ctx.runtime).drain()
    assert ctx.service.load(game_id).over
    assert ctx.store.snapshot_version(game_id) == ctx.store.version(game_id)


def test_a_queue_of_its_own_or_a_cluster_dispatches_after_the_append() -> None:
    def runtime(**settings: Any) -> Runtime:
        return Runtime(load_settings(**settings), None, None)

    assert runtime(redis_url="redis://127.0.0.1:6379/0").dispatch_on_append
    separate = runtime(redis_url="redis://a:6379/0", queue_url="redis://b:6379/0")
    assert not separate.dispatch_on_append and separate.append_dispatch() is None
    cluster = runtime(redis_url="redis://a:7000", redis_cluster=True, queue_url="redis://b:6379/0")
    assert not cluster.dispatch_on_append
