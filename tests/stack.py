"""A cardroom deployment of local processes, for scale-out tests and benchmarks.

API processes run under gunicorn with ``deploy/gunicorn.conf.py`` (one
gunicorn worker each, so each is one Python process) and workers are
``cardroom worker`` processes, all configured only through ``CARDROOM_*``
variables, as in production. Each process gets its own process group and
log file; :meth:`Stack.stop` kills the groups (also at interpreter exit).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from tests.rediscluster import free_ports

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
GUNICORN_CONF = ROOT / "deploy" / "gunicorn.conf.py"


@dataclass
class Proc:
    name: str
    popen: subprocess.Popen[bytes]
    log: Path

    def log_tail(self, lines: int = 30) -> str:
        try:
            text = self.log.read_text(errors="replace").splitlines()[-lines:]
        except OSError:
            return "(no log)"
        return "\n".join(text)


@dataclass
class Stack:
    """API and worker processes sharing one environment."""

    env: dict[str, str]
    directory: Path = field(
        default_factory=lambda: Path(tempfile.mkdtemp(prefix="cardroom-stack-"))
    )
    procs: list[Proc] = field(default_factory=list)
    api_urls: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        atexit.register(self.stop)

    def _spawn(self, name: str, args: list[str], env: dict[str, str]) -> Proc:
        log = self.directory / f"{name}.log"
        with log.open("wb") as out:
            popen = subprocess.Popen(
                args,
                env=env,
                cwd=ROOT,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        proc = Proc(name, popen, log)
        self.procs.append(proc)
        return proc

    def start_api(self, threads: int = 8, **extra_env: str) -> str:
        """One API process (gunicorn, one worker); returns its base URL."""
        (port,) = free_ports(1)
        env = {
            **self.env,
            "CARDROOM_BIND": f"127.0.0.1:{port}",
            "CARDROOM_API_PROCESSES": "1",
            "CARDROOM_API_THREADS": str(threads),
            **extra_env,
        }
        args = [str(BIN / "gunicorn"), "-c", str(GUNICORN_CONF), "service.api:create_app()"]
        self._spawn(f"api-{len(self.api_urls)}", args, env)
        url = f"http://127.0.0.1:{port}"
        self.api_urls.append(url)
        return url

    def start_worker(self, **extra_env: str) -> Proc:
        count = sum(p.name.startswith("worker") for p in self.procs)
        return self._spawn(
            f"worker-{count}", [str(BIN / "cardroom"), "worker"], {**self.env, **extra_env}
        )

    def wait_healthy(self, timeout_s: float = 60) -> None:
        """Until every API answers ``/healthz`` (and every process still runs)."""
        deadline = time.monotonic() + timeout_s
        with httpx.Client(timeout=2) as http:
            for url in self.api_urls:
                while True:
                    self.check_running()
                    with contextlib.suppress(httpx.HTTPError):
                        if http.get(f"{url}/healthz").status_code == 200:
                            break
                    if time.monotonic() > deadline:
                        raise RuntimeError(f"{url} did not become healthy:\n{self.logs()}")
                    time.sleep(0.1)

    def check_running(self) -> None:
        for proc in self.procs:
            if proc.popen.poll() is not None:
                raise RuntimeError(
                    f"{proc.name} exited with {proc.popen.returncode}:\n{proc.log_tail()}"
                )

    def logs(self, lines: int = 15) -> str:
        return "\n".join(f"--- {p.name}\n{p.log_tail(lines)}" for p in self.procs)

    def stop(self) -> None:
        """SIGTERM every process group, then SIGKILL what is left; delete the
        logs (print :meth:`logs` first to keep what they say)."""
        for proc in self.procs:
            if proc.popen.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.popen.pid, signal.SIGTERM)
        deadline = time.monotonic() + 5
        for proc in self.procs:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.popen.wait(max(0.1, deadline - time.monotonic()))
            if proc.popen.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.popen.pid, signal.SIGKILL)
                proc.popen.wait(5)
        self.procs.clear()
        shutil.rmtree(self.directory, ignore_errors=True)


def base_env(
    redis_url: str, queue_url: str, queue_name: str, *, cluster: bool, **extra: str
) -> dict[str, str]:
    """The variables every process of a stack shares."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CARDROOM_")}
    env.update(
        {
            "CARDROOM_REDIS_URL": redis_url,
            "CARDROOM_REDIS_CLUSTER": "1" if cluster else "0",
            "CARDROOM_QUEUE_URL": queue_url,
            "CARDROOM_QUEUE_NAME": queue_name,
            "CARDROOM_BOT_DELAY_S": "0",
            "CARDROOM_LOG_LEVEL": "WARNING",
            "CARDROOM_RATE_LIMIT": "1000000/second",
            **{
                f"CARDROOM_LIMIT_{b}": "1000000/second"
                for b in ("MOVES", "GAMES", "SEATS", "READS")
            },
            "CARDROOM_STREAM_KEEPALIVE_S": "1",
            **extra,
        }
    )
    return env


def create_bot_game(
    http: httpx.Client, create_url: str, seat_urls: list[str], game: str, options: dict[str, Any]
) -> str:
    """Open a table at ``create_url`` and fill it with bots, one seat per
    request, going round ``seat_urls``; the last seat starts the game."""
    body: dict[str, Any] = {"game": game, "options": options}
    if game == "azi":
        body["seats"] = 3
    r = http.post(f"{create_url}/games", json=body)
    assert r.status_code == 201, r.text
    created = r.json()
    for seat in range(created["seats"]):
        url = f"{seat_urls[seat % len(seat_urls)]}/games/{created['game_id']}/seats"
        r = http.post(url, json={"name": f"bot{seat}", "bot": True})
        assert r.status_code == 201, r.text
    return str(created["game_id"])
