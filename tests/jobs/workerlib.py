"""Helpers for tests with real ``cardroom worker`` processes on the real Redis."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from service.engines import game as table
from service.games import GameService
from service.runtime import Runtime
from service.store import EventStore

ROOT = Path(__file__).resolve().parents[2]
WORKER_DB_URL = os.environ.get("CARDROOM_TEST_WORKER_REDIS_URL", "redis://127.0.0.1:6379/13")
CARDROOM = str(Path(sys.executable).with_name("cardroom"))


@dataclass
class Cluster:
    """The test's own worker processes, queue and services."""

    env: dict[str, str]
    runtime: Runtime
    store: EventStore
    service: GameService
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def start_worker(self) -> subprocess.Popen[bytes]:
        proc = subprocess.Popen(
            [CARDROOM, "worker"],
            env=self.env,
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        self.procs.append(proc)
        return proc

    def start_scheduler(self) -> subprocess.Popen[bytes]:
        proc = subprocess.Popen(
            [CARDROOM, "scheduler", "--interval", "1"],
            env=self.env,
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        self.procs.append(proc)
        return proc

    def kill(self, proc: subprocess.Popen[bytes]) -> None:
        """SIGKILL the process and any work horse it forked."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)

    def stop_all(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                self.kill(proc)

    def projected(self, game_id: str, deadline_s: float = 30) -> int:
        """Wait for the workers' projection to reach the stream's version."""
        deadline = time.monotonic() + deadline_s
        version = self.store.version(game_id)
        while self.store.snapshot_version(game_id) < version:
            if time.monotonic() > deadline:
                raise AssertionError(f"projection of {game_id} stuck below {version}")
            # Nothing to block on here but the snapshot key itself; wait on the
            # stream (which ends the wait early if anything is appended).
            self.store.wait(game_id, version, 50)
            version = self.store.version(game_id)
        return version

    def wait_until(self, game_id: str, done: object, deadline_s: float) -> table.Game:
        """Block on the game's stream (no sleeping) until ``done(state)`` holds."""
        deadline = time.monotonic() + deadline_s
        state = self.service.load(game_id)
        while not done(state):  # type: ignore[operator]
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"game {game_id} stuck at version {state.version}")
            self.store.wait(game_id, state.version, int(min(left, 1.0) * 1000) or 1)
            state = self.service.load(game_id)
        return state


def finished(state: table.Game) -> bool:
    return state.over and state.server_seed is not None
