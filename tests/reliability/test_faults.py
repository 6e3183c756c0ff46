"""Faults in the middle of play, on a stack of real processes (``service.devstack``).

Each test starts its own Redis (the deploy's AOF config, ``appendfsync
always``) on a free port and private directory, its own API under gunicorn
and its own ``cardroom worker`` and ``cardroom scheduler`` processes, and
stops them all at the end. Human-style clients play while the fault is
injected; afterwards every game must have ended and pass every check of
``bench.integrity`` (contiguous versions, every acknowledged move in the
stream and nothing else, a clean audit, Azi chips conserved).
"""

from __future__ import annotations

import json
import os
import random
import signal
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
import redis
from rq import Queue, Worker
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus

from bench.players import TableSpec
from service.devstack import Proc, Stack, running_stack
from service.engines import table
from service.store import EventStore, keys
from tests.testredis import client_of

from .faults import (
    Players,
    acks_in_stream,
    check_all,
    figures,
    needs_redis_server,
    wait_ended,
    wait_state,
    waits_for_a_worker,
)

pytestmark = [needs_redis_server]

AZI = TableSpec("azi", {"buy_in": 40, "ante": 10, "min_bet": 10}, 3)
AZI_LONG = TableSpec("azi", {"buy_in": 100, "ante": 10, "min_bet": 10}, 2)
HAZARI = TableSpec("hazari", {"target": 360})
MURLAN_BOTS = TableSpec("murlan", {}, bots=3)
MURLAN_ALL_BOTS = TableSpec("murlan", {}, bots=4)
AZI_BOTS = TableSpec("azi", {"buy_in": 30, "ante": 10, "min_bet": 10}, 3)
HAZARI_BOTS = TableSpec("hazari", {"target": 360})


def failures(players: Players) -> int:
    """Answers the clients got that were not answers: 5xx and transport errors."""
    return sum(n for (_, status), n in players.stats.statuses.items() if not answered(status))


def answered(status: str) -> bool:
    """A status below 500 (not a server error, not a transport error's name)."""
    return status.isdigit() and int(status) < 500


def until(condition: Callable[[], bool], deadline_s: float) -> None:
    """Until ``condition`` holds (it reads counters the clients' thread updates)."""
    deadline = time.monotonic() + deadline_s
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.02)


def reached(version: int) -> Callable[[table.Table], bool]:
    """The game is at ``version`` or beyond, or has ended (a game may end early)."""
    return lambda state: state.version >= version or state.over


@pytest.fixture
def stack() -> Iterator[Stack]:
    with running_stack(workers=2, scheduler=True, CARDROOM_LOG_LEVEL="INFO") as made:
        yield made


RESTARTS = [
    ("sigterm", "always"),
    ("sigkill", "always"),
    ("sigterm", "everysec"),
    ("sigkill", "everysec"),
    ("sigkill-after-rewrite", "always"),
]


@pytest.mark.parametrize(("how", "fsync"), RESTARTS)
def test_redis_restart_loses_no_acknowledged_move(how: str, fsync: str) -> None:
    """Redis, on the shipped ``deploy/redis.conf`` and ``users.acl`` as they are,
    goes down mid-play and comes back on the same AOF: every 201 is still there
    and every game finishes. The append script's writes reach the AOF as
    MULTI/EXEC, which Redis re-checks against the default user's permissions
    while it loads the file: an ACL that restricts the default user loses them
    all on restart. ``sigkill-after-rewrite`` lets Redis rewrite its AOF during
    play (a small auto-rewrite size), so the restart loads a rewritten base and
    the transactions appended after it."""
    rewrite = ["--auto-aof-rewrite-min-size", "64kb"] if "rewrite" in how else []
    options = ["--appendfsync", fsync, *rewrite]
    with running_stack(workers=2, redis_options=options, CARDROOM_LOG_LEVEL="INFO") as stack:
        restart_mid_play(stack, how, fsync)


def restart_mid_play(stack: Stack, how: str, fsync: str) -> None:
    store = EventStore(stack.redis.client())
    with pytest.raises(redis.AuthenticationError):  # the shipped ACL is in force
        stack.redis.client(username=None, password=None).ping()
    players = Players(stack.api_url, [AZI_LONG, AZI, HAZARI], tolerate_5xx=True)
    tables = players.start()
    states = [wait_state(store, t.game_id, reached(20)) for t in tables]
    assert not all(s.over for s in states), "every game ended before the restart"
    if "rewrite" in how:
        until(lambda: int(client_of(store).info("persistence")["aof_rewrites"]) > 0, 60)
        rewritten_at = len(players.stats.acks)
        until(lambda: len(players.stats.acks) > rewritten_at + 20, 60)  # appended after it
    acked_before = len(players.stats.acks)
    client_of(store).close()
    failed_before = failures(players)
    down = time.monotonic()
    if how.startswith("sigkill"):
        stack.redis.kill()
    else:
        stack.redis.stop()
    # Redis stays down until the clients have run into it a few times.
    until(lambda: failures(players) >= failed_before + 5, 30)
    stack.redis.start()
    outage_s = time.monotonic() - down
    store = EventStore(stack.redis.client())
    found = acks_in_stream(store, players.stats)
    assert found >= acked_before > 0
    # play resumes: every table moves on and ends
    wait_ended(store, [t.game_id for t in tables])
    players.join()
    stack.check_running()
    checks = check_all(stack, players, [t.game_id for t in tables])
    failed = {f"{k} {s}": n for (k, s), n in players.stats.statuses.items() if not answered(s)}
    figures(
        f"redis {how} restart (appendfsync {fsync}, shipped ACL)",
        outage_s=round(outage_s, 2),
        acked_before_restart=acked_before,
        acked_total=len({(a.game_id, a.first_version) for a in players.stats.acks}),
        events=sum(c.version for c in checks),
        errors_during_outage=dict(failed),
        stream_resumes=players.stats.resumes,
    )


def test_killed_worker_and_api_process_mid_request(stack: Stack) -> None:
    """SIGKILL workers while they run a job and gunicorn's workers while they serve
    requests (live streams, moves): the games still end and audit clean."""
    store = EventStore(stack.redis.client())
    players = Players(stack.api_url, [AZI, AZI, HAZARI, MURLAN_BOTS], deadline_s=240)
    tables = players.start()
    ids = [t.game_id for t in tables]
    caught = 0
    for n in range(3):
        wait_state(store, ids[n % len(ids)], reached(10 + 10 * n))
        victim = stack.workers[n % len(stack.workers)]
        caught += kill_worker_mid_job(client_of(store), victim)
        stack.workers.remove(victim)
        stack.start_worker()
    resumes = players.stats.resumes
    killed = []
    murlan = ids[[t.spec.game for t in tables].index("murlan")]
    for pid in stack.wait_api_workers(2):
        wait_state(store, murlan, reached(store.version(murlan) + 2))
        os.kill(pid, signal.SIGKILL)
        killed.append(pid)
        replace_deadline = time.monotonic() + 60
        while len(set(stack.wait_api_workers(2)) - set(killed)) < 2:
            assert time.monotonic() < replace_deadline, "gunicorn did not replace its worker"
            time.sleep(0.05)  # a process that is starting offers nothing to block on
    wait_ended(store, ids, 240)
    players.join()
    stack.check_running()
    checks = check_all(stack, players, ids)
    assert players.stats.resumes > resumes, "no live stream was cut by the API kills"
    errors = {f"{k} {s}": n for (k, s), n in players.stats.statuses.items() if not answered(s)}
    figures(
        "kill workers and API processes",
        worker_kills=3,
        worker_kills_mid_job=caught,
        api_kills=len(killed),
        transport_errors=errors,
        stream_resumes=players.stats.resumes,
        moves_acked=len({(a.game_id, a.first_version) for a in players.stats.acks}),
        events=sum(c.version for c in checks),
    )


def kill_worker_mid_job(redis: Any, victim: Proc, deadline_s: float = 20) -> int:
    """SIGKILL ``victim`` as soon as RQ says it is running a job; 1 if the job was
    left unfinished (then the reconciler must notice it), else 0."""
    deadline = time.monotonic() + deadline_s
    job_id = None
    while job_id is None and time.monotonic() < deadline:
        for worker in Worker.all(connection=redis):
            if worker.pid == victim.pid:
                job_id = worker.get_current_job_id()
        if job_id is None:
            time.sleep(0.005)  # jobs take milliseconds: look often
    victim.kill()
    if job_id is None:
        return 0
    try:
        job = Job.fetch(job_id, connection=redis)
    except NoSuchJobError:  # it finished first: follow-ups keep no result
        return 0
    return 1 if job.get_status() == JobStatus.STARTED else 0


def open_bot_table(http: httpx.Client, spec: TableSpec) -> str:
    """A table of bots only: nothing but the workers can play it."""
    body: dict[str, Any] = {"game": spec.game, "options": spec.options}
    if spec.seats is not None:
        body["seats"] = spec.seats
    created = http.post("/games", json=body).json()
    for n in range(created["seats"]):
        r = http.post(f"/games/{created['game_id']}/seats", json={"name": f"b{n}", "bot": True})
        assert r.status_code == 201, r.text
    return str(created["game_id"])


def test_a_queue_filled_while_the_workers_are_down_is_caught_up() -> None:
    """No worker runs while tables fill the queue; then two start and catch up."""
    with running_stack(workers=0, scheduler=False, CARDROOM_LOG_LEVEL="INFO") as stack:
        store = EventStore(stack.redis.client())
        queue = Queue(
            stack.env.get("CARDROOM_QUEUE_NAME", "cardroom"), connection=stack.redis.client()
        )
        with httpx.Client(base_url=stack.api_url, timeout=30) as http:
            bots = [open_bot_table(http, AZI_BOTS) for _ in range(12)]
            bots += [open_bot_table(http, HAZARI_BOTS) for _ in range(3)]
        players = Players(stack.api_url, [AZI, AZI, HAZARI], deadline_s=240)
        tables = players.start()
        ids = bots + [t.game_id for t in tables]
        for t in tables:  # the clients play until their tables wait for a worker
            wait_state(store, t.game_id, waits_for_a_worker)

        def waiting() -> int:  # games on the drains' list, and jobs on the queue
            return int(client_of(store).llen(keys.drains_pending(queue.name))) + len(queue)

        depth = waiting()
        assert depth >= len(ids)
        started = time.monotonic()
        stack.start_worker()
        stack.start_worker()
        stack.start_scheduler()
        wait_ended(store, ids, 240)
        ended_s = time.monotonic() - started
        drained_at = time.monotonic() + 60
        while waiting() > 0:  # the last follow-ups of the ended games
            assert time.monotonic() < drained_at, f"{waiting()} follow-ups still waiting"
            time.sleep(0.1)  # the queue's length is all there is to look at
        players.join()
        stack.check_running()
        checks = check_all(stack, players, ids)
        figures(
            "queue filled while workers were down",
            tables=len(ids),
            waiting_at_start=depth,
            all_games_ended_s=round(ended_s, 1),
            events=sum(c.version for c in checks),
            events_per_s=round(sum(c.version for c in checks) / ended_s, 1),
        )


def test_a_dropped_live_stream_resumes_from_its_last_version(stack: Stack) -> None:
    """Cut a live NDJSON stream again and again mid-game; resumed with
    ``?after=<last version>`` the events arrive each exactly once, in order."""
    rng = random.Random(5)
    store = EventStore(stack.redis.client())
    with httpx.Client(base_url=stack.api_url, timeout=httpx.Timeout(20)) as http:
        game_id = open_bot_table(http, MURLAN_ALL_BOTS)
        received: list[int] = []
        drops = 0
        ended = False
        while not ended:
            assert drops < 500, "the game never ended"
            cut_after = rng.randint(1, 40)
            headers = {"Accept": "application/x-ndjson"}
            params = {"after": str(received[-1] if received else 0)}
            with http.stream(
                "GET", f"/games/{game_id}/events", params=params, headers=headers
            ) as r:
                assert r.status_code == 200
                fresh = 0
                for line in r.iter_lines():
                    item = json.loads(line)
                    if item["kind"] == "event":
                        received.append(item["version"])
                        fresh += 1
                    elif item["kind"] == "end":
                        ended = True
                        break
                    if fresh >= cut_after:
                        drops += 1
                        break  # leaving the block closes the connection mid-stream
        stored = store.read(game_id)
        assert received == [s.version for s in stored] == list(range(1, len(stored) + 1))
        assert http.get("/healthz").status_code == 200
    figures("dropped live stream", drops=drops, events=len(received), gaps=0, duplicates=0)
