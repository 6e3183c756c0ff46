"""``cardroom export`` / ``import`` / ``replay <game id>`` against a real Redis."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import redis

from service.config import load_settings
from service.demo import play_bot_game
from service.runtime import Runtime
from tests.testredis import TEST_REDIS
from workers.context import install
from workers.embedded import EmbeddedWorker

CARDROOM = str(Path(sys.executable).with_name("cardroom"))
URL = f"{TEST_REDIS}/8"

pytestmark = pytest.mark.redis


def run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CARDROOM_REDIS_URL": URL}
    return subprocess.run([CARDROOM, *args], env=env, capture_output=True, text=True, timeout=120)


def test_export_import_round_trip(tmp_path: Path) -> None:
    client = redis.Redis.from_url(URL)
    client.flushdb()
    try:
        runtime = Runtime.from_settings(load_settings(redis_url=URL, queue_name="export-test"))
        install(runtime)
        state, _ = play_bot_game(
            runtime, "azi", {"buy_in": 40, "ante": 10}, 2, EmbeddedWorker(runtime).drain
        )
        archive = tmp_path / "game.jsonl"
        assert run("export", state.game_id, "--format", "jsonl", "-o", str(archive)).returncode == 0
        lines = archive.read_text().splitlines()
        assert len(lines) == state.version
        replay = run("export", state.game_id)
        assert replay.returncode == 0
        doc = json.loads(replay.stdout)
        assert doc["complete"] and len(doc["events"]) == state.version
        text = run("replay", state.game_id)
        assert text.returncode == 0 and "deal 0" in text.stdout

        client.flushdb()
        imported = run("import", str(archive))
        assert imported.returncode == 0, imported.stderr
        assert state.game_id in imported.stdout
        again = run("export", state.game_id)
        assert json.loads(again.stdout)["events"] == doc["events"]
        path = tmp_path / "replay.json"
        path.write_text(again.stdout)
        assert run("verify", str(path)).returncode == 0
        refused = run("import", str(archive))  # never overwrites an existing game
        assert refused.returncode == 1 and state.game_id in refused.stderr
        assert "Traceback" not in refused.stderr
        missing = run("export", "no-such-game")
        assert missing.returncode == 1 and "no-such-game" in missing.stderr
    finally:
        client.flushdb()
