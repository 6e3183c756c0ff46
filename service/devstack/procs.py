"""Processes of a local stack: free ports, one process in a group of its own
(:class:`Proc`), stopping many at once, the bounded readiness poll
(:func:`wait_for`) and the paths of the repository and the installed commands.

Each process runs in its own process group with its own log file; every wait
for a process to be ready is bounded in time and, when it fails, says why
with the tail of the log.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parents[2]
"""The source checkout (its ``deploy/`` files are what the stack runs on)."""
BIN: Final = Path(sys.executable).parent
GUNICORN: Final = str(BIN / "gunicorn")
CARDROOM: Final = str(BIN / "cardroom")
POLL_S: Final = 0.05
"""Interval of readiness polls (a process that is starting offers nothing to block on)."""


def free_ports(count: int) -> list[int]:
    """``count`` distinct ports of 127.0.0.1 that were free a moment ago."""
    socks: list[socket.socket] = []
    try:
        for _ in range(count):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def free_port() -> int:
    """A port of 127.0.0.1 that was free a moment ago."""
    (port,) = free_ports(1)
    return port


def private_directory(prefix: str) -> Path:
    """A new directory of this process's own under the system's temporary directory."""
    return Path(tempfile.mkdtemp(prefix=prefix))


def tail(path: Path, lines: int = 20) -> str:
    """The last ``lines`` lines of a log file."""
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def wait_for(
    ready: Callable[[], bool],
    deadline: float,
    failure: Callable[[], str],
    *,
    alive: Callable[[], None] | None = None,
    interval_s: float = POLL_S,
) -> None:
    """Poll ``ready`` until it holds; ``alive`` (called first each round) raises if
    something it depends on died; past ``deadline`` (``time.monotonic()``),
    raise :class:`RuntimeError` with ``failure()``."""
    while True:
        if alive is not None:
            alive()
        if ready():
            return
        if time.monotonic() > deadline:
            raise RuntimeError(failure())
        time.sleep(interval_s)


def _signal_group(popen: subprocess.Popen[bytes], sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(popen.pid, sig)


class Proc:
    """One process in a process group of its own; stdout and stderr go to ``log``
    (appended to, so a process started again keeps one log). It runs in ``cwd``
    (the repository unless told otherwise)."""

    def __init__(
        self,
        name: str,
        args: list[str],
        log: Path,
        env: dict[str, str] | None = None,
        *,
        cwd: Path = ROOT,
    ) -> None:
        self.name = name
        self.args = args
        self.log = log
        self.env = env
        self.cwd = cwd
        self.popen: subprocess.Popen[bytes] | None = None

    def __repr__(self) -> str:
        state = "running" if self.running else "stopped"
        return f"Proc({self.name!r}, {state})"

    def start(self) -> Proc:
        if self.running:
            raise RuntimeError(f"{self.name} is running already")
        with self.log.open("ab") as out:
            self.popen = subprocess.Popen(
                self.args,
                env=self.env,
                cwd=self.cwd,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        return self

    @property
    def started(self) -> bool:
        return self.popen is not None

    @property
    def running(self) -> bool:
        return self.popen is not None and self.popen.poll() is None

    @property
    def pid(self) -> int:
        if self.popen is None:
            raise RuntimeError(f"{self.name} was never started")
        return self.popen.pid

    @property
    def returncode(self) -> int | None:
        return None if self.popen is None else self.popen.poll()

    def terminate(self) -> None:
        """SIGTERM the group (a graceful shutdown), without waiting."""
        if self.running:
            assert self.popen is not None
            _signal_group(self.popen, signal.SIGTERM)

    def stop(self, timeout_s: float = 20) -> int | None:
        """SIGTERM the group and wait; SIGKILL it if the process is still there after
        ``timeout_s``. Returns the exit status (``None`` if never started)."""
        stop_all([self], timeout_s)
        return self.returncode

    def kill(self) -> None:
        """SIGKILL the whole group, as a crash would, and reap the process."""
        if self.popen is None:
            return
        _signal_group(self.popen, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(20)

    def children(self) -> list[int]:
        """The pids of this process's direct children (gunicorn's workers, for the API)."""
        if not self.running:
            return []
        path = Path(f"/proc/{self.pid}/task/{self.pid}/children")
        try:
            return [int(p) for p in path.read_text().split()]
        except OSError:
            return []

    def log_tail(self, lines: int = 20) -> str:
        return tail(self.log, lines)


def stop_all(procs: Iterable[Proc], timeout_s: float = 10) -> None:
    """SIGTERM every running process's group at once, wait for them all until
    ``timeout_s`` has passed, SIGKILL what is left; then SIGKILL each group
    again for anything a process left behind in it (an RQ work horse)."""
    started = [p for p in procs if p.popen is not None]
    for proc in started:
        proc.terminate()
    deadline = time.monotonic() + timeout_s
    for proc in started:
        assert proc.popen is not None
        try:
            proc.popen.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            proc.kill()
        _signal_group(proc.popen, signal.SIGKILL)


def process_gone(pid: int) -> bool:
    """Whether process ``pid`` has exited (a zombie nobody reaped counts as gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True
    return any(
        line.split()[1:2] == ["Z"] for line in status.splitlines() if line.startswith("State:")
    )
