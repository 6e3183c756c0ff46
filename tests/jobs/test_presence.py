"""No silent seat freezes a table: turn limits by default, away seats, abandoned games.

Played in one process on fakeredis with the workers' own job functions; time
is passed in (``now_ms``) instead of waited for.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from schemas.codec import encode_event
from service import cli
from service.config import load_settings
from service.engines import table
from service.engines.base import OptionError
from service.replay import audit_replay, build_replay
from service.retention import run_pass
from service.runtime import Runtime
from workers import jobs, reconcile
from workers.context import WorkerContext, install
from workers.reconcile import reconcile_pass

LATER_MS = 10**15
"""A time far past any turn limit."""


@pytest.fixture
def ctx() -> Iterator[WorkerContext]:
    settings = load_settings(
        redis_url=None, bot_delay_s=0, job_retry_backoff_s="", abandon_after_s=600
    )
    yield install(Runtime.from_settings(settings))


def one_person(ctx: WorkerContext, options: dict[str, Any] | None = None) -> tuple[str, str]:
    """A Murlan table: seat 0 a person (its token returned), seats 1-3 bots."""
    state = ctx.service.create_game("murlan", options or {}, None)
    grant = ctx.service.take_seat(state.game_id, "silent", None)
    assert grant.token is not None
    for n in range(3):
        ctx.service.take_seat(state.game_id, f"bot{n}", None, bot=True)
    return state.game_id, grant.token


def until_seat_acts(ctx: WorkerContext, game_id: str, seat: int) -> table.Table:
    """Let the bots play until ``seat`` is to act (or the game ended)."""
    for _ in range(500):
        jobs.process_game(game_id)
        state = ctx.service.load(game_id)
        if state.over or seat in jobs._to_act(state):
            jobs.project(game_id)  # when its turn began, as the workers see it
            return state
    raise AssertionError("the bots never handed the turn to the seat")


def types(ctx: WorkerContext, game_id: str) -> list[str]:
    return [s.event.type for s in ctx.store.read(game_id, 0)]


def test_every_table_has_a_turn_limit_unless_it_asks_for_none(ctx: WorkerContext) -> None:
    made = ctx.service.create_game("murlan", {}, None)
    assert made.turn_timeout_s == table.DEFAULT_TURN_TIMEOUT_S
    assert ctx.service.create_game("murlan", {"turn_timeout_s": None}, None).turn_timeout_s == 60
    assert ctx.service.create_game("murlan", {"turn_timeout_s": 7}, None).turn_timeout_s == 7
    for none in (0, "none"):
        assert (
            ctx.service.create_game("murlan", {"turn_timeout_s": none}, None).turn_timeout_s is None
        )
    with pytest.raises(OptionError, match="turn_timeout_s"):
        ctx.service.create_game("murlan", {"turn_timeout_s": "never"}, None)
    # a stored game created before the default keeps its meaning: null is no limit
    old = table.GameCreated("old", "murlan", {"turn_timeout_s": None}, 4, "c" * 64)
    assert table.fold([old]).turn_timeout_s is None


def test_a_silent_seat_is_marked_away_and_the_bot_finishes_the_game(ctx: WorkerContext) -> None:
    game_id, _token = one_person(ctx)
    for missed in (1, 2):
        state = until_seat_acts(ctx, game_id, 0)
        assert not state.over
        assert jobs.enforce_timeouts(game_id, now_ms=LATER_MS) >= 1
        assert types(ctx, game_id).count("TurnTimedOut") == missed
    state = ctx.service.load(game_id)
    assert table.is_away(state, 0) and table.plays_automatically(state, 0)
    assert types(ctx, game_id).count("SeatAway") == 1
    away = [s.event for s in ctx.store.read(game_id, 0) if s.event.type == "SeatAway"]
    assert away == [table.SeatAway(0, 2)]
    assert table.view(state, None)["away"] == [0]
    # from now on the bot plays the seat without waiting for its turn limit
    for _ in range(2000):
        if state.over:
            break
        jobs.process_game(game_id)
        state = ctx.service.load(game_id)
    assert state.over and state.abandoned is None
    assert types(ctx, game_id).count("TurnTimedOut") == 2
    jobs.process_game(game_id)  # the reveal
    state = ctx.service.load(game_id)
    assert state.server_seed is not None
    stored = ctx.store.read(game_id, 0)
    doc = json.loads(json.dumps(build_replay(state, stored, None)))
    assert any(e["type"] == "SeatAway" for e in doc["events"])
    report = audit_replay(doc)
    assert report.ok, report.as_json()


def test_the_seat_comes_back_on_its_own_move(ctx: WorkerContext) -> None:
    game_id, _token = one_person(ctx)
    for _ in range(2):
        until_seat_acts(ctx, game_id, 0)
        jobs.enforce_timeouts(game_id, now_ms=LATER_MS)
    state = ctx.service.load(game_id)
    assert table.is_away(state, 0)
    # its turn comes round again before the bot has played it: the seat moves itself
    for _ in range(500):
        if 0 in jobs._to_act(state) or state.over:
            break
        seat = next(iter(jobs._to_act(state)))
        move = state.engine.bot_move(state.engine_state, seat)
        jobs._play(game_id, seat, move, state, timed_out=False)
        ctx.service.advance(game_id)
        state = ctx.service.load(game_id)
    assert not state.over
    move = state.engine.bot_move(state.engine_state, 0)
    result = ctx.service.submit_move(game_id, 0, move)
    shown = [e["type"] for e in result.body["events"]]
    assert shown[0] == "SeatBack"
    state = ctx.service.load(game_id)
    assert not table.is_away(state, 0) and not table.plays_automatically(state, 0)
    assert state.strikes[0] == 0
    # one more timeout is the first of a new count: not away again yet
    state = until_seat_acts(ctx, game_id, 0)
    if not state.over:
        jobs.enforce_timeouts(game_id, now_ms=LATER_MS)
        assert not table.is_away(ctx.service.load(game_id), 0)


def test_an_authenticated_request_brings_an_away_seat_back(ctx: WorkerContext) -> None:
    game_id, token = one_person(ctx)
    for _ in range(2):
        until_seat_acts(ctx, game_id, 0)
        jobs.enforce_timeouts(game_id, now_ms=LATER_MS)
    assert table.is_away(ctx.service.load(game_id), 0)
    from service.api import create_app

    app = create_app(
        ctx.runtime.settings, ctx.runtime, {"TESTING": True, "RATELIMIT_ENABLED": False}
    )
    app.extensions["cardroom"] = ctx.service
    auth = {"Authorization": f"Bearer {token}"}
    r = app.test_client().get(f"/games/{game_id}", headers=auth)
    assert r.status_code == 200
    assert r.get_json()["away"] == []
    state = ctx.service.load(game_id)
    assert not table.is_away(state, 0)
    assert types(ctx, game_id)[-1] == "SeatBack"
    # a view while not away changes nothing
    r = app.test_client().get(f"/games/{game_id}", headers=auth)
    assert ctx.service.load(game_id).version == state.version
    # away again (two more missed turns): opening the seat's live stream brings it back
    for _ in range(2):
        until_seat_acts(ctx, game_id, 0)
        jobs.enforce_timeouts(game_id, now_ms=LATER_MS)
    assert table.is_away(ctx.service.load(game_id), 0)
    stream = app.test_client().get(
        f"/games/{game_id}/events",
        headers={**auth, "Accept": "application/x-ndjson"},
        buffered=False,
    )
    first = json.loads(next(iter(stream.response)))
    stream.close()
    assert first["kind"] == "view" and first["view"]["away"] == []
    assert not table.is_away(ctx.service.load(game_id), 0)


def test_a_game_nobody_plays_is_abandoned_and_its_replay_verifies(
    ctx: WorkerContext, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game_id, _ = one_person(ctx, {"turn_timeout_s": 0})
    state = until_seat_acts(ctx, game_id, 0)
    now_ms = int(time.time() * 1000)
    assert not ctx.service.abandon_if_idle(game_id, now_ms + 599_000)
    assert ctx.service.abandon_if_idle(game_id, now_ms + 601_000)
    assert not ctx.service.abandon_if_idle(game_id, now_ms + 602_000)  # once
    jobs.process_game(game_id)  # the reveal
    state = ctx.service.load(game_id)
    assert state.over and state.abandoned == "idle" and state.server_seed is not None
    stored = ctx.store.read(game_id, 0)
    abandoned = [s.event for s in stored if isinstance(s.event, table.GameAbandoned)]
    assert len(abandoned) == 1
    assert abandoned[0].standings == {"scores": [0, 0, 0, 0]}
    assert encode_event(abandoned[0])["schema_version"] == 2
    view = table.view(state, None)
    assert view["status"] == "ended" and view["abandoned"] == "idle"
    doc = json.loads(json.dumps(build_replay(state, stored, None)))
    report = audit_replay(doc)
    assert report.ok, report.as_json()
    # and offline, as an auditor would
    path = tmp_path / "abandoned.json"
    path.write_text(json.dumps(doc))
    assert cli.main(["verify", str(path)]) == 0
    assert "OK" in capsys.readouterr().out


def test_a_table_that_never_started_is_not_abandoned_but_expires(
    ctx: WorkerContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Idle past CARDROOM_ABANDON_AFTER_S with a seat still free: the reconciler
    leaves the table alone (no GameAbandoned, no ended game kept for ever); the
    retention pass deletes it once CARDROOM_UNJOINED_TTL_S has passed."""
    state = ctx.service.create_game("murlan", {}, None)
    ctx.service.take_seat(state.game_id, "waiting", None)
    jobs.process_game(state.game_id)  # its follow-up ran: no marker, no timer
    later = int(time.time() * 1000) + 601_000  # past CARDROOM_ABANDON_AFTER_S (600 s)
    monkeypatch.setattr(reconcile, "now_ms", lambda: later)
    ctx.runtime.redis.delete("cardroom:{reconciler}:state")  # a new sweep, from the start
    reconcile_pass()
    assert not ctx.service.abandon_if_idle(state.game_id, later)
    after = ctx.service.load(state.game_id)
    assert after.abandoned is None and after.version == 2
    settings = ctx.runtime.settings
    assert run_pass(ctx.store, settings, now_ms=later).expired == []
    expired = run_pass(ctx.store, settings, now_ms=later + settings.unjoined_ttl_s * 1000)
    assert expired.expired == [state.game_id]
