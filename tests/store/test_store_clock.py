"""The one clock (:mod:`service.store.clock`): Redis's ``TIME``, on every backend.

The events' times, :class:`ServerClock` and the scripts' ``clock_ms()`` are
one clock; the scripts' ``turn_deadline`` is the Python formula; and a
process whose own clock is an hour off claims timers and spends shared rate
budgets by Redis's clock all the same. (fakeredis answers ``TIME`` from the
test process's own clock, so the shifted-clock tests need a real server.)
"""

from __future__ import annotations

import time

import pytest
import redis

from service.budgets import Rate, RedisBudgets
from service.store import EventStore, clock, keys
from service.store.clients import run_script
from service.store.followups import Followups
from tests.store.helpers import created

DEADLINE = clock.LUA + "return turn_deadline(ARGV[1], ARGV[2])"


def test_events_are_stamped_by_the_clock_the_store_reads(store: EventStore) -> None:
    before = store.now_ms("clock-game")
    result = store.append("clock-game", [created("clock-game")], 0)
    after = store.now_ms("clock-game")
    assert result.at_ms is not None and before <= result.at_ms <= after
    assert abs(store.now_ms() - after) < 5_000  # any node's: the same clock, give or take


def test_the_scripts_turn_deadline_is_the_python_formula(redis_client: redis.Redis) -> None:
    script = redis_client.register_script(DEADLINE)
    for began, limit in [(1_796_159_910_524, 30), (1_796_159_910_524, "1.5"), (0, 86_400)]:
        want = clock.turn_deadline_ms(began, limit)
        got = run_script(script, [keys.events("g")], [began, clock.limit_ms(limit)])
        assert int(got) == want


def shift_clock(monkeypatch: pytest.MonkeyPatch, shift_s: float) -> None:
    real = time.time
    monkeypatch.setattr(time, "time", lambda: real() + shift_s)


SHIFTS = pytest.mark.parametrize("shift_s", [3600, -3600], ids=["ahead-1h", "behind-1h"])


@pytest.fixture(params=["real", pytest.param("cluster", marks=pytest.mark.cluster)])
def server(request: pytest.FixtureRequest) -> redis.Redis:
    """A Redis in its own process (its clock is not this process's)."""
    client: redis.Redis = request.getfixturevalue(f"{request.param}_redis")
    return client


@pytest.mark.redis
@SHIFTS
def test_timers_are_claimed_by_redis_s_clock(
    server: redis.Redis, monkeypatch: pytest.MonkeyPatch, shift_s: int
) -> None:
    followups = Followups(server, 5.0, lambda game_id, version: None)
    now = followups.clock.now_ms(followups.due_key("due"))
    server.zadd(followups.due_key("due"), {"due": now - 1})
    server.zadd(followups.due_key("later"), {"later": now + 60_000})
    shift_clock(monkeypatch, shift_s)
    assert followups.claim_due() == ["due"]  # not "later", however far ahead this process is
    # the claim put it back a lease later by Redis's clock, not this process's
    again = server.zscore(followups.due_key("due"), "due")
    assert again is not None and now + 5_000 <= again < now + 15_000
    assert followups.next_due_in_ms() is not None
    # a watchdog's time: Redis's as last read, carried on by the monotonic clock
    low = followups.clock.now_ms()
    estimate = followups.clock.estimate_ms()
    assert low <= estimate <= followups.clock.now_ms()
    followups.failed("later", [2])  # a retry's backoff: 2 s from Redis's now
    retry = server.zscore(followups.due_key("later"), "later")
    assert retry is not None and now + 2_000 <= retry < now + 12_000


@pytest.mark.redis
@SHIFTS
def test_a_shared_budget_is_spent_by_redis_s_clock(
    server: redis.Redis, monkeypatch: pytest.MonkeyPatch, shift_s: int
) -> None:
    """An API process an hour off neither locks an address out for the others
    nor lets it through early: the bucket is kept in Redis's time."""
    rate = Rate.parse("2/minute")
    budgets = RedisBudgets(server)
    with monkeypatch.context() as shifted:
        shift_clock(shifted, shift_s)
        assert budgets.take("cardroom:{rate}:clock", rate) == 0
    assert budgets.take("cardroom:{rate}:clock", rate) == 0  # the burst's second token
    wait = budgets.take("cardroom:{rate}:clock", rate)
    assert 0 < wait <= 30_000  # one token's interval, not an hour
    ttl = server.pttl("cardroom:{rate}:clock")
    assert 0 < ttl <= 60_000
