"""The end of a worker's work never waits on its commands thread for long.

RQ ends a worker's work by unsubscribing from its commands channel, then
stopping the thread that listens on it. When the unsubscribe's reply reaches
that thread first, the thread waits a whole poll for a subscription that will
not come, and stopping it waits as long: a minute with RQ's own poll, which
stalled the embedded worker's loop (it ends a burst of work on every turn) and
the warm shutdown of worker processes on busy machines.
"""

from __future__ import annotations

import time

import pytest
import redis
from rq import Queue

from workers.embedded import ThreadWorker
from workers.rqworker import COMMANDS_POLL_S, CardroomWorker

pytestmark = pytest.mark.redis


def test_the_commands_thread_stops_within_its_poll_after_the_reply_came_first(
    real_redis: redis.Redis,
) -> None:
    worker = CardroomWorker([Queue("commands-test", connection=real_redis)], connection=real_redis)
    worker.subscribe()
    thread = worker.pubsub_thread
    assert thread is not None and thread.is_alive()
    worker.pubsub.unsubscribe()  # the race lost: the reply is read before the stop flag is set
    deadline = time.monotonic() + 10
    while worker.pubsub.subscribed and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not worker.pubsub.subscribed
    # With a poll of a minute the thread would still be waiting here.
    thread.stop(timeout=10 * COMMANDS_POLL_S)
    assert not thread.is_alive()
    worker.pubsub.close()


def test_the_embedded_worker_opens_no_commands_thread(real_redis: redis.Redis) -> None:
    queue = Queue("commands-test", connection=real_redis)
    worker = ThreadWorker([queue], connection=real_redis)
    for _ in range(3):  # its loop ends a burst of work on every turn
        worker.work(burst=True, logging_level="WARNING")
        assert worker.pubsub_thread is None
    assert not real_redis.pubsub_numsub(worker.pubsub_channel_name)[0][1]
