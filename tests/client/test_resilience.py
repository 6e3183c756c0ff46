"""The kit over a bad network and a bad server: a whole match on a stream that
drops every 40 lines and a server killed and restarted mid-match, with no event
missed or repeated; a moves budget of 5 a minute; the kit killed with -9 and
resumed on the same seats."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from cardroom_client import Client, Line, ProblemError, RetryPolicy
from cardroom_client.bot import Runner, State, TableState
from cardroom_client.bot.loader import load_choose
from cardroom_client.bot.setup import ensure_player, open_table

from service.devstack import Serve

from .conftest import EXAMPLES, GAMES, read_state, run_kit, start_kit, wait_until
from .faults import DroppingTransport

pytestmark = pytest.mark.slow


def test_drops_and_a_restart_lose_and_repeat_nothing(
    own_server: Callable[..., Serve], tmp_path: Path
) -> None:
    serve = own_server()
    dropping = DroppingTransport(every=40)
    client = Client(serve.url, transport=dropping, keepalive_s=2)
    state = State(url=serve.url, path=tmp_path / "state.json")
    state.tables.append(TableState(game="murlan", fill_bots=3))
    ensure_player(client, state)
    open_table(client, state, state.tables[0], options={}, seats=None, name="kit")
    game_id = state.tables[0].game_id
    assert game_id is not None
    runner = Runner(client, load_choose(EXAMPLES / "murlan_bot.py"), state)
    seen: list[int] = []
    restarted: list[int] = []
    on_line = runner.on_line

    def watch(tables: dict[str, TableState], line: Line) -> None:
        if line.kind == "event":
            seen.append(line.version)
        if len(seen) >= 300 and not restarted:
            serve.proc.kill()  # the server dies mid-match (SIGKILL); a new one takes its data
            restarted.append(line.version)
            serve.start()
        on_line(tables, line)

    runner.on_line = watch  # type: ignore[method-assign]
    runner.run()
    client.close()
    assert state.tables[0].ended and restarted
    with Client(serve.url) as check:
        final = check.view(game_id).version
        assert check.verify(game_id).verified
    assert dropping.drops >= 10
    assert len(seen) == len(set(seen)), "an event was yielded twice"
    assert seen == list(range(seen[0], final + 1)), "an event was missed"


def test_a_budget_of_five_moves_a_minute_still_finishes(
    own_server: Callable[..., Serve], tmp_path: Path
) -> None:
    """The seat's budget is spent before the kit's first move, so each of its
    moves meets a 429 and waits its Retry-After (12 s at 5 a minute)."""
    serve = own_server(CARDROOM_LIMIT_MOVES="5/minute")
    waits: list[float] = []

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        time.sleep(seconds)

    client = Client(serve.url, policy=RetryPolicy(sleep=sleep))
    state = State(url=serve.url, path=tmp_path / "state.json")
    state.tables.append(TableState(game="hazari", fill_bots=3))
    ensure_player(client, state)
    open_table(client, state, state.tables[0], options={"target": 360}, seats=None, name="kit")
    table = state.tables[0]
    assert table.game_id and table.token
    impatient = Client(serve.url, policy=RetryPolicy(retry_for_s=0))
    for _ in range(5):  # moves the game refuses still spend the seat's budget
        with pytest.raises(ProblemError):
            impatient.move(table.game_id, table.token, {"action": "pass"})
    impatient.close()
    runner = Runner(client, load_choose(EXAMPLES / "hazari_bot.py"), state)
    runner.run()  # raises nothing
    client.close()
    assert table.ended and runner.moves >= 1 and runner.fallbacks == 0
    assert waits and max(waits) >= 5, waits  # Retry-After, not a transport back-off


def test_killed_with_9_the_kit_resumes_the_same_seats(server: Serve, tmp_path: Path) -> None:
    state_file = tmp_path / "state.json"
    kit = start_kit(server.url, "murlan_bot.py", state_file, "--game", "murlan",
                    *GAMES["murlan"])  # fmt: skip
    try:
        wait_until(lambda: bool(read_state(state_file).get("tables", [{}])[0].get("token")),
                   60, "the kit's seat")  # fmt: skip
        (table,) = read_state(state_file)["tables"]
        with Client(server.url) as client:
            wait_until(lambda: client.view(table["game_id"]).version > 150, 120, "some moves")
            os.kill(kit.pid, signal.SIGKILL)
            kit.wait()
            killed_at = client.view(table["game_id"]).version
            assert client.view(table["game_id"]).status == "playing"
            summary = run_kit(server.url, "murlan_bot.py", state_file, "--resume")
            assert summary.startswith("cardroom-bot: 1 of 1 games ended"), summary
            (after,) = read_state(state_file)["tables"]
            assert (after["game_id"], after["seat"], after["token"]) == (
                table["game_id"], table["seat"], table["token"],
            )  # fmt: skip
            assert after["ended"]
            events = client.events(table["game_id"], after=killed_at, limit=1000).events
            resumed = [e for e in events if getattr(e, "seat", None) == table["seat"]]
            assert any(e.type in ("CardsPlayed", "Passed") for e in resumed), "no move of its own"
            assert client.verify(table["game_id"]).verified
    finally:
        if kit.poll() is None:
            kit.kill()
