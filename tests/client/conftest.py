"""What the client and bot-kit tests share: a real ``cardroom serve`` on loopback
(its own ``redis-server`` on a private data directory), with budgets wide enough
that only the tests about budgets meet them, and helpers to run the kit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from service.devstack import Serve

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "client" / "examples"
WIDE = {
    "CARDROOM_LIMIT_MOVES": "100000/minute",
    "CARDROOM_LIMIT_GAMES": "100000/minute",
    "CARDROOM_LIMIT_SEATS": "100000/minute",
    "CARDROOM_LIMIT_READS": "100000/minute",
    "CARDROOM_RATE_LIMIT": "100000/second",
    "CARDROOM_BOT_DELAY_S": "0",
}
GAMES: dict[str, list[str]] = {
    "hazari": ["--fill-bots", "3", "--option", "target=360"],
    "murlan": ["--fill-bots", "3"],
    "azi": ["--fill-bots", "1", "--seats", "2", "--option", "buy_in=100",
            "--option", "ante=20", "--option", "min_bet=20"],
}  # fmt: skip
"""Each game's quickest real match against house bots."""


def start_serve(tmp: Path, **env: str) -> Serve:
    tmp.mkdir(parents=True, exist_ok=True)
    return Serve(tmp / "data", tmp / "serve.log", **{**WIDE, **env}).start()


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serve]:
    """One server for the tests that need nothing special of it."""
    serve = start_serve(tmp_path_factory.mktemp("client-serve"))
    yield serve
    serve.stop()


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[Callable[..., Serve]]:
    """A server of the test's own, with its settings (stopped at the end)."""
    made: list[Serve] = []

    def start(**env: str) -> Serve:
        made.append(start_serve(tmp_path / f"s{len(made)}", **env))
        return made[-1]

    yield start
    for serve in made:
        serve.proc.kill()


def kit_env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": f"{ROOT / 'client' / 'src'}{os.pathsep}{ROOT}"}


def kit_args(url: str, bot: str, state: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "cardroom_client.bot.cli", "run", str(EXAMPLES / bot),
            "--url", url, "--state", str(state), "-q", *extra]  # fmt: skip


def run_kit(url: str, bot: str, state: Path, *extra: str, timeout: float = 240) -> str:
    """Run ``cardroom-bot`` to its end; its summary line."""
    done = subprocess.run(
        kit_args(url, bot, state, *extra),
        env=kit_env(), capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    return done.stdout.strip().splitlines()[-1]


def start_kit(url: str, bot: str, state: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        kit_args(url, bot, state, *extra), env=kit_env(), text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip


def read_state(path: Path) -> dict[str, Any]:
    for _ in range(3):
        try:
            data: dict[str, Any] = json.loads(path.read_text())
            return data
        except (FileNotFoundError, ValueError):
            time.sleep(0.05)
    return {}


def wait_until(check: Callable[[], bool], timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)
