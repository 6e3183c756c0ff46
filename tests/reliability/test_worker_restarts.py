"""``cardroom worker`` and ``cardroom scheduler`` ride out a Redis restart instead of quitting.

RQ's worker leaves its loop on any error in it — a job's bookkeeping hitting
a Redis that is restarting is one — and then either returns or raises while
deregistering. Without a supervisor to start it again the games would stop
for good; ``run_worker`` starts a fresh worker once Redis answers, and ends
only when asked to (SIGTERM/SIGINT) or in burst mode; ``run_scheduler``
and the timers loop keep going through Redis errors. The fault test of a
Redis restart (``test_faults.py``) shows it with real processes; here the
loop itself is checked with a stand-in worker.
"""

from __future__ import annotations

import os
import signal
from typing import Any, ClassVar

import pytest
import redis
from rq import Queue

from service.config import load_settings
from workers import main
from workers.rqworker import CardroomWorker

Outcome = BaseException | str


class FakeWorker:
    """Stands in for cardroom's worker: each instance plays the next scripted outcome."""

    outcomes: ClassVar[list[Outcome]] = []
    made: ClassVar[int] = 0

    options: ClassVar[dict[str, Any]] = {}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        FakeWorker.made += 1
        FakeWorker.options = kwargs
        self.signalled = False

    def work(self, **kwargs: Any) -> bool:
        outcome = FakeWorker.outcomes.pop(0)
        if isinstance(outcome, BaseException):
            raise outcome
        if outcome == "stopped":  # SIGTERM: the worker records it, then returns
            self.signalled = True
        return True


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    seen: list[object] = []
    monkeypatch.setattr(main, "CardroomWorker", FakeWorker)
    monkeypatch.setattr(main, "_await_redis", seen.append)
    FakeWorker.made = 0
    return seen


def run(*outcomes: Outcome, burst: bool = False) -> int:
    FakeWorker.outcomes = list(outcomes)
    settings = load_settings(redis_url="redis://127.0.0.1:1/0")
    code = main.run_worker(settings, burst=burst, with_scheduler=False)
    assert not FakeWorker.outcomes, "the worker stopped early"
    return code


def test_a_lost_redis_starts_a_fresh_worker_once_it_answers(waits: list[object]) -> None:
    lost = redis.ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")
    assert run(lost, redis.TimeoutError("timed out"), "stopped") == 0
    assert FakeWorker.made == 3 and len(waits) == 2


def test_a_loop_left_after_an_error_is_entered_again(waits: list[object]) -> None:
    assert run("quit after an error", "stopped") == 0  # RQ returned without a stop request
    assert FakeWorker.made == 2 and len(waits) == 1


def test_a_requested_stop_and_a_burst_end_the_process(waits: list[object]) -> None:
    assert run("stopped") == 0
    assert run("done", burst=True) == 0
    assert FakeWorker.made == 2 and not waits


@pytest.mark.parametrize("max_age_s", [2, 60, 3600])
def test_an_idle_worker_beats_within_half_the_heartbeat_age(
    waits: list[object], fake_redis: redis.Redis, max_age_s: float
) -> None:
    """RQ beats before each blocking wait for a job, which lasts its dequeue
    timeout: ``run_worker`` makes that at most half of the setting."""
    settings = load_settings(
        redis_url="redis://127.0.0.1:1/0", worker_heartbeat_max_age_s=max_age_s
    )
    FakeWorker.outcomes = ["stopped"]
    assert main.run_worker(settings, with_scheduler=False) == 0
    ttl = FakeWorker.options["worker_ttl"]
    assert ttl == main.worker_ttl(settings)
    worker = CardroomWorker(
        [Queue("q", connection=fake_redis)], connection=fake_redis, worker_ttl=ttl
    )
    assert worker.dequeue_timeout <= max_age_s / 2


def test_the_worker_records_a_sigterm_itself(fake_redis: redis.Redis) -> None:
    """A SIGTERM during a job (here the job sends it) ends RQ's loop after the job,
    and the worker says so through its own record, which ``run_worker`` reads."""
    queue = Queue("signals", connection=fake_redis)
    queue.enqueue(os.kill, os.getpid(), signal.SIGTERM)
    worker = CardroomWorker([queue], connection=fake_redis)
    before = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    try:
        worker.work(burst=False, logging_level="WARNING")
    finally:
        signal.signal(signal.SIGTERM, before[0])
        signal.signal(signal.SIGINT, before[1])
    assert worker.signalled
    assert main._stop_requested(worker)
    assert not main._stop_requested(CardroomWorker([queue], connection=fake_redis))


def test_the_timers_loop_rides_out_redis_being_away(monkeypatch: pytest.MonkeyPatch) -> None:
    """``cardroom scheduler`` (and each worker's timers thread) keeps ticking
    through Redis errors and ends only when asked to."""
    import threading

    from service.runtime import Runtime
    from workers.timers import Ticker

    runtime = Runtime.from_settings(load_settings(redis_url=None, timer_poll_s=0.01))
    ticker = Ticker(runtime, reconcile=False)
    stop = threading.Event()
    outcomes: list[BaseException | None] = [
        redis.ConnectionError("Connection closed by server."),
        redis.TimeoutError("Timeout reading from socket"),
        None,
    ]
    ticks: list[int] = []

    def tick() -> int:
        ticks.append(1)
        outcome = outcomes.pop(0) if outcomes else None
        if outcome is not None:
            raise outcome
        if not outcomes:
            stop.set()
        return 0

    monkeypatch.setattr(ticker, "tick", tick)
    ticker.run(stop)
    assert len(ticks) == 3 and stop.is_set()
