"""At least once: a ``cardroom worker`` killed with ``kill -9`` in the middle of
a delivery (after the event, before the delivery was done) loses it not:
another worker sends it, with the same id, once the dead one's claim lapses.

Real worker processes on the real Redis (a database of this suite's own),
the receiver on loopback; the workers may connect to loopback only."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest
import redis

from service.config import load_settings
from service.devstack import Stack
from service.games import GameService
from service.runtime import Runtime
from service.store import EventStore
from tests.testredis import TEST_REDIS
from workers.context import install

from .support import Receiver, eventually

DB_URL = f"{TEST_REDIS}/11"
HOOK_SETTINGS = {
    "CARDROOM_WEBHOOK_HTTP_LOOPBACK": "1",
    "CARDROOM_WEBHOOK_TIMEOUT_S": "20",
    "CARDROOM_WEBHOOK_LEASE_S": "2",
    "CARDROOM_BOT_DELAY_S": "0",
    "CARDROOM_LOG_LEVEL": "WARNING",
    "CARDROOM_TIMER_POLL_S": "0.05",
}


@pytest.fixture
def stack() -> Iterator[tuple[Stack, Runtime]]:
    client = redis.Redis.from_url(DB_URL)
    try:
        client.ping()
    except redis.ConnectionError as exc:
        pytest.skip(f"no Redis at {DB_URL} ({exc}); run tests/ensure-redis.sh")
    client.flushdb()
    queue = f"test-hooks-{uuid.uuid4().hex[:8]}"
    env = {
        **os.environ,
        "CARDROOM_REDIS_URL": DB_URL,
        "CARDROOM_QUEUE_NAME": queue,
        **HOOK_SETTINGS,
    }
    settings = load_settings(
        redis_url=DB_URL,
        queue_name=queue,
        bot_delay_s=0,
        webhook_http_loopback=True,
        webhook_lease_s=2,
    )
    runtime = Runtime.from_settings(settings)
    install(runtime)
    made = Stack(env)
    try:
        yield made, runtime
    finally:
        made.stop()
        client.flushdb()
        client.close()


def test_a_delivery_survives_its_worker_killed_mid_attempt(
    stack: tuple[Stack, Runtime], receiver: Receiver
) -> None:
    procs, runtime = stack
    store = EventStore(runtime.redis)
    service = GameService(runtime, store)
    receiver.hang.set()  # the first attempt reaches the receiver and gets no answer
    doomed = procs.start_worker()
    game = service.create_game("azi", {"buy_in": 40, "ante": 10, "min_bet": 10}, 2)
    first = service.take_seat(game.game_id, "a", "s0")
    hook = runtime.webhooks.create(
        game.game_id, 0, False, receiver.url(), ["turn_started", "hand_ended"], "127.0.0.1"
    )
    second = service.take_seat(game.game_id, "b", "s1")  # the deal, by the worker, follows
    state = service.load(game.game_id)
    while not state.engine.to_act(state.engine_state):
        store.wait(game.game_id, state.version, 1000)
        state = service.load(game.game_id)
    if sorted(state.engine.to_act(state.engine_state)) == [1]:  # seat 1 folds: hand_ended for 0
        fold = next(
            m for m in state.engine.legal_moves(state.engine_state, 1) if m.get("action") == "fold"
        )
        service.submit_move(game.game_id, 1, fold)
    assert first.token and second.token
    hits = receiver.wait_for(lambda h: len(h) >= 1, 30)
    doomed.kill()  # SIGKILL, mid-attempt: the delivery is neither logged nor done
    receiver.hang.clear()
    procs.start_worker()
    hits = receiver.wait_for(lambda h: len(h) >= 2, 30)
    assert hits[1].headers["Cardroom-Delivery"] == hits[0].headers["Cardroom-Delivery"]
    assert hits[1].body == hits[0].body
    delivery_id = hits[0].headers["Cardroom-Delivery"]
    assert delivery_id.startswith(hook["id"] + ".")

    def delivered() -> bool:
        state = store.hooks.state(game.game_id, delivery_id)
        return state is not None and state["status"] == "delivered"

    eventually(delivered, 20, "the delivery logged as delivered")
