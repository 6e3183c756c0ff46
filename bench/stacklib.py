"""A whole cardroom deployment of local processes, for the load run and the fault tests.

Everything runs on 127.0.0.1 and free ports, in a private directory, as
the deployment runs it: Redis with ``deploy/redis.conf`` (AOF with
``appendfsync always``; only the port, directory, bind address and log
file are set on the command line, see :func:`local_redis_conf`), the API under gunicorn with
``deploy/gunicorn.conf.py`` (``CARDROOM_BIND`` on a free port), ``cardroom
worker`` processes and a ``cardroom scheduler`` (the reconciler), all
configured through ``CARDROOM_*`` variables only.

Faults are the point, so each process can be stopped, killed and started
again: Redis restarts on the same AOF directory and port (a restart must not
look like a new server to the clients), and the API's gunicorn workers can
be SIGKILLed one at a time while the master spawns new ones. Every process
runs in its own process group; :meth:`Stack.stop` (also registered at
interpreter exit, so an interrupted run leaves nothing behind) ends them all.
The machine's shared Redis on port 6379 is never touched.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import httpx
import redis

ROOT: Final = Path(__file__).resolve().parents[1]
BIN: Final = Path(sys.executable).parent
REDIS_CONF: Final = ROOT / "deploy" / "redis.conf"
GUNICORN_CONF: Final = ROOT / "deploy" / "gunicorn.conf.py"
REDIS_SERVER: Final = shutil.which("redis-server") or "/usr/bin/redis-server"
POLL_S: Final = 0.05
"""Interval of readiness polls (a process that is starting offers nothing to block on)."""


def free_port() -> int:
    """A port of 127.0.0.1 that was free a moment ago."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _spawn(
    args: list[str], log: Path, env: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    with log.open("ab") as out:
        return subprocess.Popen(
            args,
            env=env,
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def _signal_group(proc: subprocess.Popen[bytes], sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, sig)


def tail(path: Path, lines: int = 20) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


@dataclass
class Proc:
    """One process of the stack (its own process group) and its log file."""

    name: str
    args: list[str]
    env: dict[str, str] | None
    log: Path
    popen: subprocess.Popen[bytes] | None = None

    def start(self) -> Proc:
        if self.running:
            raise RuntimeError(f"{self.name} is running already")
        self.popen = _spawn(self.args, self.log, self.env)
        return self

    @property
    def running(self) -> bool:
        return self.popen is not None and self.popen.poll() is None

    @property
    def pid(self) -> int:
        assert self.popen is not None
        return self.popen.pid

    def stop(self, timeout_s: float = 20) -> int | None:
        """SIGTERM the group and wait; SIGKILL what is still there after ``timeout_s``."""
        if self.popen is None:
            return None
        if self.popen.poll() is None:
            _signal_group(self.popen, signal.SIGTERM)
            try:
                self.popen.wait(timeout_s)
            except subprocess.TimeoutExpired:
                self.kill()
        _signal_group(self.popen, signal.SIGKILL)  # anything the process left in its group
        return self.popen.returncode

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


LOCAL_OVERRIDES: Final = ("port", "bind", "dir", "aclfile")
"""Directives of the deploy's Redis config that a local server sets on its command line
(``aclfile`` left out: a local server keeps its default user; the ACL is tested
in tests/product/test_locked_redis.py)."""


def local_redis_conf(deploy_conf: str) -> str:
    """The deploy's Redis config with the directives of :data:`LOCAL_OVERRIDES` left out.

    Everything else (AOF on, ``appendfsync always``, no eviction…) is kept
    verbatim. Overriding on the command line alone is not enough: Redis
    applies ``dir /data`` from the file first and stops if that does not exist.
    """
    kept = []
    for line in deploy_conf.splitlines():
        words = line.split()
        if words and words[0].lower() in LOCAL_OVERRIDES:
            kept.append(f"# set on the command line: {line}")
        else:
            kept.append(line)
    return "\n".join(kept) + "\n"


@dataclass
class RedisServer:
    """``redis-server deploy/redis.conf`` on a free loopback port and a private AOF directory."""

    directory: Path
    port: int = field(default_factory=free_port)
    proc: Proc | None = None

    def __post_init__(self) -> None:
        self.data = self.directory / "redis-data"
        self.data.mkdir(parents=True, exist_ok=True)
        conf = self.directory / "redis.conf"
        conf.write_text(local_redis_conf(REDIS_CONF.read_text()))
        args = [
            REDIS_SERVER, str(conf),
            "--port", str(self.port),
            "--bind", "127.0.0.1",
            "--dir", str(self.data),
            "--logfile", str(self.directory / "redis.log"),
            "--daemonize", "no",
        ]  # fmt: skip
        self.proc = Proc("redis", args, None, self.directory / "redis.log")

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def client(self) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=10)

    def start(self, timeout_s: float = 30) -> None:
        assert self.proc is not None
        self.proc.start()
        self.wait_ready(timeout_s)

    def wait_ready(self, timeout_s: float) -> None:
        """Until Redis answers PING and has finished loading its AOF."""
        assert self.proc is not None
        deadline = time.monotonic() + timeout_s
        client = self.client()
        try:
            while True:
                if not self.proc.running:
                    raise RuntimeError(f"redis-server exited:\n{self.proc.log_tail()}")
                with contextlib.suppress(redis.ConnectionError, redis.BusyLoadingError):
                    if client.ping() and client.info("persistence").get("loading") == 0:
                        return
                if time.monotonic() > deadline:
                    raise RuntimeError(f"redis-server did not answer:\n{self.proc.log_tail()}")
                time.sleep(POLL_S)
        finally:
            client.close()

    def stop(self) -> int | None:
        """SIGTERM: Redis finishes writing its AOF and exits (a clean shutdown)."""
        assert self.proc is not None
        return self.proc.stop()

    def kill(self) -> None:
        """SIGKILL: no shutdown at all (what ``appendfsync always`` is for)."""
        assert self.proc is not None
        self.proc.kill()

    def restart(self, *, kill: bool = False) -> None:
        """Stop (or kill) and start again on the same port and AOF directory."""
        if kill:
            self.kill()
        else:
            self.stop()
        self.start()


@dataclass
class Stack:
    """Redis, the API, workers and the scheduler sharing one environment."""

    directory: Path
    redis: RedisServer
    env: dict[str, str]
    api: Proc | None = None
    api_url: str = ""
    workers: list[Proc] = field(default_factory=list)
    scheduler: Proc | None = None
    keep: bool = False

    def start_api(self, processes: int = 2, threads: int = 16) -> str:
        """gunicorn with the deploy's config on a free port; returns the base URL."""
        port = free_port()
        env = {
            **self.env,
            "CARDROOM_BIND": f"127.0.0.1:{port}",
            "CARDROOM_API_PROCESSES": str(processes),
            "CARDROOM_API_THREADS": str(threads),
        }
        args = [str(BIN / "gunicorn"), "-c", str(GUNICORN_CONF), "service.api:create_app()"]
        self.api = Proc("api", args, env, self.directory / "api.log").start()
        self.api_url = f"http://127.0.0.1:{port}"
        return self.api_url

    def start_worker(self) -> Proc:
        name = f"worker-{len(self.workers)}"
        proc = Proc(
            name, [str(BIN / "cardroom"), "worker"], self.env, self.directory / f"{name}.log"
        )
        self.workers.append(proc.start())
        return proc

    def start_scheduler(self, interval_s: int = 1) -> Proc:
        args = [str(BIN / "cardroom"), "scheduler", "--interval", str(interval_s)]
        self.scheduler = Proc("scheduler", args, self.env, self.directory / "scheduler.log")
        return self.scheduler.start()

    def wait_healthy(self, timeout_s: float = 60) -> None:
        """Until ``/healthz`` answers 200 (and every process still runs)."""
        deadline = time.monotonic() + timeout_s
        with httpx.Client(timeout=2) as http:
            while True:
                self.check_running()
                with contextlib.suppress(httpx.HTTPError):
                    if http.get(f"{self.api_url}/healthz").status_code == 200:
                        return
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the API did not become healthy:\n{self.logs()}")
                time.sleep(POLL_S)

    def wait_api_workers(self, count: int, timeout_s: float = 60) -> list[int]:
        """Until gunicorn's master has ``count`` worker processes; their pids."""
        assert self.api is not None
        deadline = time.monotonic() + timeout_s
        while len(children := self.api.children()) < count:
            self.check_running()
            if time.monotonic() > deadline:
                raise RuntimeError(f"gunicorn has {len(children)} workers, not {count}")
            time.sleep(POLL_S)
        return children

    def processes(self) -> list[Proc]:
        procs = [p for p in (self.api, self.scheduler) if p is not None]
        return [*procs, *self.workers]

    def check_running(self) -> None:
        for proc in self.processes():
            if proc.popen is not None and not proc.running:
                raise RuntimeError(f"{proc.name} exited:\n{proc.log_tail()}")

    def logs(self, lines: int = 15) -> str:
        procs = [*self.processes(), self.redis.proc]
        return "\n".join(f"--- {p.name}\n{p.log_tail(lines)}" for p in procs if p is not None)

    def stop(self) -> None:
        """Every process, Redis last; the directory goes too unless ``keep``."""
        for proc in self.processes():
            proc.stop(10)
        if self.redis.proc is not None:
            self.redis.proc.stop(20)
        if not self.keep:
            shutil.rmtree(self.directory, ignore_errors=True)


def stack_env(redis_url: str, **extra: str) -> dict[str, str]:
    """The variables every process of a stack shares (none inherited from the caller)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CARDROOM_")}
    env.update(
        {
            "CARDROOM_REDIS_URL": redis_url,
            "CARDROOM_BOT_DELAY_S": "0",
            "CARDROOM_LOG_LEVEL": "WARNING",
            "CARDROOM_RATE_LIMIT": "1000000/second",
            "CARDROOM_STREAM_KEEPALIVE_S": "1",
            **extra,
        }
    )
    return env


@contextlib.contextmanager
def running_stack(
    *,
    workers: int = 2,
    scheduler: bool = True,
    api: bool = True,
    api_processes: int = 2,
    api_threads: int = 16,
    keep: bool = False,
    **env: str,
) -> Iterator[Stack]:
    """A started stack (Redis first, then the API and the workers), stopped on exit."""
    directory = Path(tempfile.mkdtemp(prefix="cardroom-reliability-"))
    server = RedisServer(directory)
    stack = Stack(directory, server, stack_env(server.url, **env), keep=keep)
    atexit.register(stack.stop)
    try:
        server.start()
        if api:
            stack.start_api(api_processes, api_threads)
        for _ in range(workers):
            stack.start_worker()
        if scheduler:
            stack.start_scheduler()
        if api:
            stack.wait_healthy()
        yield stack
    finally:
        stack.stop()
        atexit.unregister(stack.stop)
