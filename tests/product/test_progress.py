"""The long commands (``fairness --rebuild``, ``archive``, ``demo``, ``import``, ``audit``)
show progress on a terminal and nothing of it elsewhere or with ``--json``.

A terminal is a real pseudo-terminal for one command run as a process, and
rich's own ``TTY_COMPATIBLE=1`` for the others run in this process; anything
else (pytest's captured streams, pipes) is not one.
"""

from __future__ import annotations

import fcntl
import json
import os
import struct
import subprocess
import sys
import termios
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis

from service import demo
from service.cli import main
from service.config import load_settings
from service.demo import play_bot_game
from service.runtime import Runtime
from tests.testredis import TEST_REDIS
from workers.context import install
from workers.embedded import EmbeddedWorker

pytestmark = pytest.mark.redis

CARDROOM = str(Path(sys.executable).with_name("cardroom"))
URL = f"{TEST_REDIS}/9"
FORCING = ("TTY_COMPATIBLE", "FORCE_COLOR", "NO_COLOR", "TERM", "COLUMNS")
"""What tells rich whether and how to draw, cleared so the test decides."""
ESC = "\x1b["


@dataclass(frozen=True)
class Played:
    game_id: str
    """A finished game."""
    export: Path
    """Its JSON Lines export."""
    events: int


@pytest.fixture
def played(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Played]:
    """One finished Azi game on the test Redis (database 9), and its export; this
    process's environment points the command at that Redis and a fresh archive."""
    client = redis.Redis.from_url(URL)
    client.flushdb()
    for name in FORCING:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CARDROOM_REDIS_URL", URL)
    monkeypatch.setenv("CARDROOM_ARCHIVE_URL", str(tmp_path / "archive"))
    monkeypatch.setenv("CARDROOM_ARCHIVE_AFTER_S", "0")
    try:
        runtime = Runtime.from_settings(
            load_settings(redis_url=URL, queue_name="progress-test", bot_delay_s=0)
        )
        install(runtime)
        state, _ = play_bot_game(
            runtime, "azi", {"buy_in": 40, "ante": 10}, 2, EmbeddedWorker(runtime).drain
        )
        runtime.service().create_game("murlan", {}, None)  # a table still seating
        export = tmp_path / "game.jsonl"
        assert main(["export", state.game_id, "--format", "jsonl", "-o", str(export)]) == 0
        yield Played(state.game_id, export, state.version)
    finally:
        client.flushdb()


def on_a_terminal(args: list[str]) -> str:
    """What ``args`` writes with its standard output and error on a pseudo-terminal
    of 120 columns (``\\r\\n`` line ends, as a terminal gets them)."""
    leader, follower = os.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in FORCING}
    proc = subprocess.Popen(
        args, stdin=subprocess.DEVNULL, stdout=follower, stderr=follower, env=env
    )
    os.close(follower)
    chunks = []
    try:
        while True:
            try:
                data = os.read(leader, 65536)
            except OSError:  # EIO: the command closed the terminal's last end
                break
            if not data:
                break
            chunks.append(data)
    finally:
        os.close(leader)
        assert proc.wait(120) == 0
    return b"".join(chunks).decode()


def piped(args: list[str]) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in FORCING}
    return subprocess.run(args, capture_output=True, text=True, timeout=120, env=env)


def test_import_draws_its_progress_on_a_terminal_only(played: Played) -> None:
    redis.Redis.from_url(URL).flushdb()
    shown = on_a_terminal([CARDROOM, "import", str(played.export)])
    assert "import: events checked" in shown and f"{played.events}/{played.events}" in shown
    assert ESC in shown and f"cardroom import: imported game {played.game_id}" in shown

    redis.Redis.from_url(URL).flushdb()
    quiet = piped([CARDROOM, "import", str(played.export)])
    assert quiet.returncode == 0, quiet.stderr
    assert quiet.stdout == f"cardroom import: imported game {played.game_id}\n"
    assert "events checked" not in quiet.stderr and ESC not in quiet.stderr


def test_archive_draws_its_progress_on_a_terminal(
    played: Played, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TTY_COMPATIBLE", "1")
    assert main(["archive"]) == 0
    out = capsys.readouterr().out
    assert "archive: games looked at" in out and "2/2" in out  # the finished one, the seating one
    assert "cardroom archive: 1 finished games archived" in out


def test_archive_elsewhere_prints_its_summary_alone(
    played: Played, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["archive"]) == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert lines[0].startswith("cardroom archive: 1 finished games archived to ")
    assert lines[0].endswith("; 0 tables that never started expired")
    assert all(line.startswith("cardroom archive: ") for line in lines)
    assert "games looked at" not in captured.out + captured.err
    assert ESC not in captured.out + captured.err


def test_archive_json_is_the_summary_alone_even_on_a_terminal(
    played: Played,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    monkeypatch.setenv("TTY_COMPATIBLE", "1")
    assert main(["archive", "--json"]) == 0
    captured = capsys.readouterr()
    summary = json.loads(captured.out)
    assert summary["archived"] == 1 and summary["archived_games"] == [played.game_id]
    assert summary["expired"] == 0 and summary["expired_games"] == []
    assert summary["archive_url"] == str(tmp_path / "archive")
    assert (tmp_path / "archive" / f"{played.game_id}.jsonl").is_file()
    assert ESC not in captured.err and "games looked at" not in captured.err


def test_fairness_rebuild_draws_its_progress_on_a_terminal_only(
    played: Played, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert main(["fairness", "--rebuild"]) == 0
    quiet = capsys.readouterr()
    assert quiet.out.startswith("cardroom fairness: rebuilt from 1 games, ")
    assert "games recounted" not in quiet.out + quiet.err and ESC not in quiet.out + quiet.err

    monkeypatch.setenv("TTY_COMPATIBLE", "1")
    assert main(["fairness", "--rebuild"]) == 0
    shown = capsys.readouterr().out
    assert "fairness: games recounted" in shown and "1/1" in shown
    assert shown.count("cardroom fairness: rebuilt from 1 games, ") == 1

    assert main(["fairness", "--rebuild", "--json"]) == 0
    as_json = capsys.readouterr()
    assert json.loads(as_json.out)["games"] == 1  # standard output: the report alone
    assert as_json.err.startswith("cardroom fairness: rebuilt from 1 games, ")
    assert ESC not in as_json.err and "games recounted" not in as_json.err


def test_demo_draws_its_progress_on_a_terminal_only(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in FORCING:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(demo, "DEMO_GAMES", (("azi", {"buy_in": 40, "ante": 10}, 2),))
    assert main(["demo"]) == 0
    quiet = capsys.readouterr()
    assert quiet.out.splitlines()[-1].startswith("demo: done in ")
    assert "game 1 of 1" not in quiet.out + quiet.err and ESC not in quiet.out + quiet.err

    monkeypatch.setenv("TTY_COMPATIBLE", "1")
    assert main(["demo", "--games", "2"]) == 0
    shown = capsys.readouterr().out
    # the bar is drawn (each game's name shows only if a refresh falls within it)
    assert ESC in shown and "2/2" in shown and "verified: commitment ok" in shown


def test_audit_draws_its_progress_on_a_terminal_only(played: Played) -> None:
    shown = on_a_terminal([CARDROOM, "audit", "--jobs", "1", "--no-record"])
    assert "audit: games checked" in shown and "1/1" in shown and ESC in shown
    assert "cardroom audit: 1 games checked, 0 failed" in shown
    quiet = piped([CARDROOM, "audit", "--jobs", "1", "--no-record"])
    assert quiet.returncode == 0, quiet.stderr
    assert quiet.stdout.startswith("cardroom audit: 1 games checked, 0 failed")
    assert len(quiet.stdout.splitlines()) == 1
    assert "games checked" not in quiet.stderr and ESC not in quiet.stdout + quiet.stderr
