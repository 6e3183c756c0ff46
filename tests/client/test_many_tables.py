"""Twenty tables on one player's connection: no stream is refused; the kit
killed with -9 loses nothing, since listing the player's seats gives every
game and token back, and --resume finishes all twenty."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from pathlib import Path

import pytest
from cardroom_client import Client

from service.devstack import Serve

from .conftest import read_state, run_kit, start_kit, wait_until

pytestmark = pytest.mark.slow
TABLES = 20


def tokens_saved(path: Path) -> int:
    return sum(1 for t in read_state(path).get("tables", []) if t.get("token"))


def test_twenty_tables_on_one_connection_recover_after_a_crash(
    own_server: Callable[..., Serve], tmp_path: Path
) -> None:
    serve = own_server()
    state_file = tmp_path / "state.json"
    args = ["--game", "hazari", "--tables", str(TABLES), "--fill-bots", "3",
            "--option", "target=1000"]  # fmt: skip
    kit = start_kit(serve.url, "hazari_bot.py", state_file, *args)
    try:
        wait_until(lambda: tokens_saved(state_file) == TABLES, 120, "twenty seats")
        os.kill(kit.pid, signal.SIGKILL)
        kit.wait()
    finally:
        if kit.poll() is None:
            kit.kill()
    state = read_state(state_file)
    with Client(serve.url) as client:
        listed = client.my_seats(state["player_key"])
    held = {(t["game_id"], t["seat"], t["token"]) for t in state["tables"]}
    assert {(s.game_id, s.seat, s.token) for s in listed.seats} == held
    assert len(held) == TABLES
    summary = run_kit(serve.url, "hazari_bot.py", state_file, "--resume", timeout=400)
    assert summary.startswith(f"cardroom-bot: {TABLES} of {TABLES} games ended"), summary
    log = "\n".join(serve.log_lines())
    assert "too-many-streams" not in log
    assert log.count('"path": "/players/me/events"') <= 2  # one connection per run
    assert '"endpoint": "events.events"' not in log  # no game's own stream
    with Client(serve.url) as client:
        assert {s.status for s in client.my_seats(state["player_key"]).seats} == {"ended"}
