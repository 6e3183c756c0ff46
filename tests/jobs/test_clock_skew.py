"""One clock: a worker whose own clock is an hour off still times turns out on time.

The only worker deciding is a real ``cardroom worker`` process whose wall
clock is shifted an hour ahead or behind (``tests/clockshift``: every
``time.time()`` of that process is off, as on a machine set wrong). Turn
limits, bots' thinking delays and the timers index are measured by Redis's
``TIME`` (:mod:`service.store.clock`), so at the same time, on one Redis:

- a silent seat with a 2 s limit is timed out 2 s after its turn began (by
  the stored events' times), no earlier and within a bounded delay, three
  turns running (none missing: the worker behind saw no timer as due);
- a seat with a 30 s limit is not timed out (nor marked away) while the short
  table's three timeouts come and go (none early: the worker ahead saw no
  deadline as past);
- bots thinking 1 s move no sooner than 1 s after their turn began, and keep
  moving.

No sleeping: every wait blocks on a game's stream until a deadline.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from service.devstack import wait_for
from service.engines import table
from service.store import StoredEvent
from tests.jobs.conftest import Cluster
from tests.reliability.faults import figures
from tests.testredis import client_of

pytestmark = [pytest.mark.redis, pytest.mark.slow]

HOOK = Path(__file__).resolve().parent.parent / "clockshift"
SHORT_LIMIT_S = 2
LONG_LIMIT_S = 30
BOT_DELAY_S = 1
TIMEOUTS = 3
"""Timeouts of the short table to see: three turns running."""
BOT_MOVES = 3
"""Bots' moves to see."""
LATE_MS = 15_000
"""How late a timeout may land after its deadline: the timers' poll, a claim,
the follow-up and its append, on a machine shared with other tests (4.4 s was
seen with the whole suite running on two cores). A worker that read its own
clock would be an hour off, 240 times this; how soon timeouts land is a figure
(printed), not this test's target."""


def start_skewed_worker(cluster: Cluster, shift_s: int, report: Path) -> None:
    """The one ``cardroom worker``, its wall clock ``shift_s`` off; returns once the
    hook reports the shift in effect in that process."""
    path = os.pathsep.join(p for p in (str(HOOK), os.environ.get("PYTHONPATH", "")) if p)
    worker = cluster.stack.start_worker(
        PYTHONPATH=path,
        CARDROOM_TEST_CLOCK_SHIFT_S=str(shift_s),
        CARDROOM_TEST_CLOCK_REPORT=str(report),
        CARDROOM_BOT_DELAY_S=str(BOT_DELAY_S),
    )
    wait_for(
        report.exists,
        time.monotonic() + 30,
        lambda: f"the clock hook did not run in the worker:\n{worker.log_tail()}",
        alive=cluster.stack.check_running,
    )
    shown = json.loads(report.read_text())
    assert shown["pid"] == worker.pid and abs(shown["shift_s"] - shift_s) < 1


def human_table(cluster: Cluster, limit_s: int) -> str:
    """Four people who never move, at a Murlan table with ``limit_s`` turns."""
    state = cluster.service.create_game("murlan", {"turn_timeout_s": limit_s}, None)
    for i in range(4):
        cluster.service.take_seat(state.game_id, f"silent{i}", None)
    return state.game_id


def bot_table(cluster: Cluster) -> str:
    state = cluster.service.create_game("murlan", {}, None)
    for i in range(4):
        cluster.service.take_seat(state.game_id, f"bot{i}", None, bot=True)
    return state.game_id


def timeouts(stored: list[StoredEvent]) -> list[tuple[int, int]]:
    """``(deadline_ms, at_ms)`` of each turn timed out: its turn's start (the time
    of the event it began with, by the fold) plus the limit, and when it came."""
    out: list[tuple[int, int]] = []
    state: table.Table | None = None
    at_of = {s.version: s.at_ms for s in stored}
    for s in stored:
        if isinstance(s.event, table.TurnTimedOut):
            assert state is not None and state.turn_timeout_s is not None
            began = at_of[state.turn_since[s.event.seat]]
            out.append((began + int(state.turn_timeout_s * 1000), s.at_ms))
        state = table.apply(state, s.event)
    return out


def bot_waits(stored: list[StoredEvent]) -> list[int]:
    """For each bot's move: ms from its turn's start to the move (Redis's times)."""
    out: list[int] = []
    state: table.Table | None = None
    at_of = {s.version: s.at_ms for s in stored}
    for s in stored:
        seat = s.event.seat_of_move
        if seat is not None:
            assert state is not None
            out.append(s.at_ms - at_of[state.turn_since[seat]])
        state = table.apply(state, s.event)
    return out


@pytest.mark.parametrize("shift_s", [3600, -3600], ids=["ahead-1h", "behind-1h"])
def test_a_worker_an_hour_off_times_turns_out_by_redis_s_clock(
    cluster: Cluster, tmp_path: Path, shift_s: int
) -> None:
    start_skewed_worker(cluster, shift_s, tmp_path / "clock.json")
    started = time.monotonic()
    long = human_table(cluster, LONG_LIMIT_S)
    short = human_table(cluster, SHORT_LIMIT_S)
    bots = bot_table(cluster)

    cluster.wait_until(short, lambda s: len(timeouts(cluster.store.read(short))) >= TIMEOUTS, 30)
    seen_s = time.monotonic() - started
    late = [at - deadline for deadline, at in timeouts(cluster.store.read(short))]
    assert all(0 <= ms <= LATE_MS for ms in late), f"timeouts late by {late} ms"

    # Meanwhile the long table's seat was not timed out: the worker projected its
    # turn and set its timer at the deadline Redis's clock gives, 30 s from its start.
    cluster.projected(long)
    stored = cluster.store.read(long)
    assert not timeouts(stored) and not any(isinstance(s.event, table.SeatAway) for s in stored)
    state = cluster.service.load(long)
    (seat,) = state.engine.to_act(state.engine_state)
    deadline = stored[state.turn_since[seat] - 1].at_ms + LONG_LIMIT_S * 1000
    due = client_of(cluster.store).zscore(cluster.runtime.followups.due_key(long), long)
    assert due == deadline and cluster.store.now_ms(long) < deadline

    waits = bot_waits(cluster.store.read(bots))
    if len(waits) < BOT_MOVES:
        moved = lambda _: len(bot_waits(cluster.store.read(bots))) >= BOT_MOVES  # noqa: E731
        cluster.wait_until(bots, moved, 20)
        waits = bot_waits(cluster.store.read(bots))
    assert min(waits) >= BOT_DELAY_S * 1000, f"bots moved after {waits} ms"
    figures(
        f"clock skew {shift_s:+d} s",
        short_timeouts=len(late),
        late_ms_max=max(late),
        late_ms_min=min(late),
        seen_after_s=round(seen_s, 1),
        long_left_s=round((deadline - cluster.store.now_ms(long)) / 1000, 1),
        bot_moves=len(waits),
        bot_wait_ms_min=min(waits),
        bot_wait_ms_max=max(waits),
    )
