"""Workers as they run in production: separate ``cardroom worker`` processes
(the ``cluster`` fixture of ``conftest.py``)."""

from __future__ import annotations

import random
import threading
import time
from collections import Counter

import pytest

from service.engines import table
from service.engines.base import Event
from service.replay import RecordedEvent, audit
from tests.jobs.conftest import Cluster, finished
from workers import jobs
from workers.reconcile import reconcile_pass

pytestmark = [pytest.mark.redis, pytest.mark.slow]

BOT_GAMES = [
    ("hazari", {"target": 500}, None),
    ("murlan", {}, None),
    ("azi", {"buy_in": 60, "ante": 10, "min_bet": 10}, 3),
]


def bot_game(cluster: Cluster, game: str, options: dict[str, object], seats: int | None) -> str:
    state = cluster.service.create_game(game, options, seats)
    for i in range(state.seat_count):
        cluster.service.take_seat(state.game_id, f"bot{i}", None, bot=True)
    return state.game_id


def check_record(cluster: Cluster, game_id: str) -> list[Event]:
    """The stream has one event per version, and the whole game audits clean (a game
    still being played is audited up to the version its state was loaded at)."""
    state = cluster.service.load(game_id)
    stored = cluster.store.read(game_id)
    assert [s.version for s in stored] == list(range(1, len(stored) + 1))
    stored = stored[: state.version]
    kept = cluster.store.get_secret(game_id)  # gone once the game revealed it
    secret = kept.hex() if kept is not None else state.server_seed
    assert secret is not None
    report = audit(
        [RecordedEvent(s.version, s.event) for s in stored],
        secret,  # games still running are checked with the kept seed
        state.engine.result(state.engine_state),
    )
    assert report.ok, report.mismatch
    return [s.event for s in stored]


@pytest.mark.parametrize(("game", "options", "seats"), BOT_GAMES, ids=[g[0] for g in BOT_GAMES])
def test_bots_play_a_whole_match(
    cluster: Cluster, game: str, options: dict[str, object], seats: int | None
) -> None:
    cluster.stack.start_worker()
    cluster.stack.start_worker()
    game_id = bot_game(cluster, game, options, seats)
    state = cluster.wait_until(game_id, finished, 240)
    assert state.engine.is_over(state.engine_state)
    assert cluster.projected(game_id) == state.version
    events = check_record(cluster, game_id)
    assert sum(isinstance(e, table.SeedRevealed) for e in events) == 1


def test_a_human_seat_that_times_out_is_moved_for(cluster: Cluster) -> None:
    cluster.stack.start_worker()
    state = cluster.service.create_game("hazari", {"turn_timeout_s": 1}, None)
    human = cluster.service.take_seat(state.game_id, "slow", None)
    for i in range(3):
        cluster.service.take_seat(state.game_id, f"bot{i}", None, bot=True)

    def timed_out(s: table.Table) -> bool:
        return any(
            isinstance(e.event, table.TurnTimedOut) and e.event.seat == human.seat
            for e in cluster.store.read(s.game_id)
        )

    state = cluster.wait_until(state.game_id, timed_out, 30)
    stored = cluster.store.read(state.game_id)
    at = next(i for i, e in enumerate(stored) if isinstance(e.event, table.TurnTimedOut))
    following = stored[at + 1].event
    assert following.seat_of_move == human.seat  # the auto-arrangement, recorded as the seat's
    check_record(cluster, state.game_id)


def test_a_timeout_after_the_seat_moved_does_nothing(cluster: Cluster) -> None:
    state = cluster.service.create_game("murlan", {"turn_timeout_s": 1}, None)
    tokens = [cluster.service.take_seat(state.game_id, f"p{i}", None) for i in range(4)]
    state = cluster.service.load(state.game_id)
    seat = state.engine.to_act(state.engine_state)[0]
    assert tokens[seat].token is not None
    jobs.project(state.game_id)
    move = state.engine.legal_moves(state.engine_state, seat)[0]
    cluster.service.play_as(state.game_id, seat, move, state.version)
    jobs.project(state.game_id)
    before = cluster.store.version(state.game_id)
    # The clock of the seat that moved is gone; only the next seat's runs, from now.
    far_future = 10**13
    moved = jobs.enforce_timeouts(state.game_id, now_ms=far_future)
    after = cluster.service.load(state.game_id)
    events = [e.event for e in cluster.store.read(state.game_id, after=before)]
    assert moved == 1
    assert isinstance(events[0], table.TurnTimedOut) and events[0].seat != seat
    assert after.version > before


def test_the_reconciler_heals_a_lost_enqueue(
    cluster: Cluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    lost: list[tuple[str, int]] = []
    monkeypatch.setattr(
        cluster.service.repository,
        "followup",
        lambda game_id, version, delay_s=0: lost.append((game_id, version)),
    )
    # Where the append itself puts the game on the drains' list, what is lost is
    # the drain job of the slot it took: the game waits on the list, the slot held.
    monkeypatch.setattr(
        cluster.service.repository, "start_drain", lambda slot, token: lost.append(("drain", slot))
    )
    game_id = bot_game(cluster, "murlan", {}, None)
    assert lost, "the follow-ups were suppressed"
    stored = cluster.store.read(game_id)
    assert any(e.event.is_deal for e in stored)  # dealt, and then nothing: no worker was told
    assert not any(e.event.move_body() for e in stored)
    monkeypatch.undo()
    # Nothing was enqueued and no timer set: only a reconciler pass (this one, or
    # the worker's own) can find the game, once the marker's lease has run out.
    dealt = cluster.store.version(game_id)
    cluster.stack.start_worker()
    deadline = time.monotonic() + 30
    while cluster.store.version(game_id) == dealt:
        assert time.monotonic() < deadline, "the reconciler never healed the game"
        reconcile_pass()
        cluster.store.wait(game_id, dealt, 200)
    cluster.wait_until(game_id, finished, 240)
    check_record(cluster, game_id)


def test_racing_workers_leave_no_duplicate(cluster: Cluster) -> None:
    game_id = bot_game(cluster, "azi", {"buy_in": 60, "ante": 10, "min_bet": 10}, 4)
    errors: list[BaseException] = []

    def run() -> None:
        try:
            for _ in range(400):
                jobs.process_game(game_id)
                if finished(cluster.service.load(game_id)):
                    return
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    assert not errors, errors
    events = check_record(cluster, game_id)
    deals = Counter(getattr(e, "deal", None) for e in events if e.is_deal)
    assert all(n == 1 for n in deals.values())


def test_killed_workers_lose_and_invent_nothing(cluster: Cluster) -> None:
    """SIGKILL workers at random moments while bots play Azi at several tables."""
    rng = random.Random(20261129)
    cluster.stack.start_scheduler()
    workers = [cluster.stack.start_worker(), cluster.stack.start_worker()]
    games = [
        bot_game(cluster, "azi", {"buy_in": 50, "ante": 10, "min_bet": 10}, n) for n in (2, 3, 4)
    ]
    kills = 0
    while kills < 20:
        victim = workers.pop(rng.randrange(len(workers)))
        # Let the game move on a little (block on a stream; no sleeping), then kill.
        target = games[kills % len(games)]
        cluster.store.wait(target, cluster.store.version(target), rng.randint(20, 300))
        victim.kill()
        kills += 1
        workers.append(cluster.stack.start_worker())
    for game_id in games:
        state = cluster.wait_until(game_id, finished, 300)
        cluster.projected(game_id)  # the ledger is the projection's: wait for it to be current
        events = check_record(cluster, game_id)
        settled = [e for e in events if e.type == "PotSettled"]
        won = [e for e in events if e.type == "PotWon"]
        assert len(settled) == len(won)  # every pot settled exactly once
        ledger = jobs.ledger_entries(game_id)
        assert sum(ledger.values()) == 0
        assert len(ledger) == sum(
            sum(1 for p, c in zip(e.payouts, e.contributions, strict=True) if p or c)  # type: ignore[attr-defined]
            for e in settled
        )
        result = state.engine.result(state.engine_state)
        assert sum(result["results"]) == 0
        assert sum(result["stacks"]) == sum(result["buy_ins"])
