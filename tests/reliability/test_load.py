"""A small load run in the normal suite: the same clients and checks as ``bench.load``.

Three tables at once (two Azi, one Hazari) through gunicorn and two real
workers on a Redis with the deploy's AOF settings; some moves retried with
their idempotency key, some first sent with a stale version. Every game must
end and pass every check, and no process may log a token or a seed. The full
run with its figures is ``python -m bench.load`` (see docs/reliability.md).
"""

from __future__ import annotations

import asyncio

from bench.integrity import secrets_in_logs
from bench.load import HAZARI, azi, check_all, figures, play_all
from bench.players import Behaviour
from service.devstack import running_stack
from service.store import EventStore

from .faults import needs_redis_server


@needs_redis_server
def test_a_small_load_run_loses_and_invents_nothing() -> None:
    specs = [azi(2, 40), azi(3, 40, cards=4), HAZARI]
    how = Behaviour(retry_share=0.3, stale_share=0.2)
    with running_stack(CARDROOM_LOG_LEVEL="INFO") as stack:
        run = asyncio.run(play_all(stack.api_url, specs, seed=3, deadline_s=150, how=how))
        checks = check_all(stack, run)
        stack.check_running()
        leaks = secrets_in_logs(stack.directory, EventStore(stack.redis.client()), run.tables)
    out = figures(run, checks, specs, threads=16)
    assert not run.failures and not run.stats.problems and not leaks, out["problems"] + leaks
    assert out["games_ok"] == len(specs)
    assert out["idempotent_replays"] > 0
    assert any(key.startswith("move 409") for key in out["statuses"])
    print(f"\nFIGURES small load: {out['moves_per_s']} moves/s, latency {out['latency']}")
