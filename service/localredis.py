"""The embedded default's own Redis: a ``redis-server`` child process that keeps
its data in a local directory, so that games survive a restart of ``cardroom serve``.

The data directory is ``--data-dir``, else ``CARDROOM_DATA_DIR``, else
``$XDG_DATA_HOME/cardroom`` (``~/.local/share/cardroom``). It holds:

``serve.lock``
    locked (``flock``) by the one process using the directory, with its pid
    and command: a second ``cardroom serve`` on the same directory stops at
    once, naming the first, instead of starting a second Redis on the same files.
``redis/``
    Redis's working directory: the append-only file (``appendonly yes``,
    ``appendfsync everysec``: at most about a second of moves lost to a power cut).
``redis.sock``
    the Unix socket Redis listens on (mode 700, no TCP port). When the
    directory's path is too long for a socket, Redis listens on a free
    loopback port with a password drawn at start instead.
``redis.url``
    how to reach the Redis of the process holding the lock (mode 600).
``redis.conf``, ``redis.log``
    the configuration written at each start, and Redis's log.
``seed-keys``
    the key sealing server seeds at rest (mode 600), drawn the first time.

Redis is started in a session of its own (a Ctrl-C at the terminal reaches
``cardroom serve``, which stops serving first and Redis last) and, on Linux,
with ``PR_SET_PDEATHSIG``: if ``cardroom serve`` dies without stopping it
(SIGKILL, a crash), the kernel sends Redis SIGTERM and it shuts down cleanly.
Elsewhere, an orphan left by a killed process is shut down by the next
process that takes the directory's lock.

Other commands (``cardroom replay``, ``export``…) reach the same games with
:func:`reach`: the running server's Redis through ``redis.url`` when the
lock is held, else a Redis of their own started briefly on the directory.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, Final
from urllib.parse import quote

import redis

SOCKET_PATH_MAX: Final = 100
"""Longest Unix socket path used (the kernel's limit is 107 bytes)."""
START_TIMEOUT_S: Final = 60.0
"""How long Redis may take to start and load its append-only file."""
STOP_TIMEOUT_S: Final = 30.0
"""How long a clean shutdown may take before the process is killed."""
REACH_TIMEOUT_S: Final = 10.0
"""How long a reader waits for the Redis of a process that holds the lock."""
PR_SET_PDEATHSIG: Final = 1


class DataDirError(RuntimeError):
    """The data directory cannot be used (in use by another process, Redis would not start)."""


def default_data_dir(configured: str | None = None) -> Path:
    """The data directory: ``configured`` (``--data-dir`` or ``CARDROOM_DATA_DIR``),
    else ``$XDG_DATA_HOME/cardroom``, else ``~/.local/share/cardroom``."""
    if configured:
        return Path(configured).expanduser().resolve()
    xdg = os.environ.get("XDG_DATA_HOME")
    base = Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".local" / "share"
    return (base / "cardroom").resolve()


def redis_server_binary() -> str | None:
    """The ``redis-server`` on the ``PATH``, or ``None``."""
    return shutil.which("redis-server")


# -- the lock --------------------------------------------------------------------------
class DataDirLock:
    """The directory's ``serve.lock``, held with ``flock`` until :meth:`release`
    (or the process's end: the kernel drops the lock of a dead process)."""

    def __init__(self, data_dir: Path, file: IO[str]) -> None:
        self.data_dir = data_dir
        self._file: IO[str] | None = file

    @classmethod
    def take(cls, data_dir: Path, purpose: str) -> DataDirLock | None:
        """The lock, or ``None`` if another process holds it."""
        data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        file = (data_dir / "serve.lock").open("a+", encoding="utf-8")
        try:
            fcntl.flock(file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            file.close()
            return None
        file.seek(0)
        file.truncate()
        file.write(f"{os.getpid()} {purpose}\n")
        file.flush()
        return cls(data_dir, file)

    def release(self) -> None:
        if self._file is not None:
            fcntl.flock(self._file.fileno(), fcntl.LOCK_UN)
            self._file.close()
            self._file = None


def holder(data_dir: Path) -> str:
    """Who holds the directory's lock, as its lock file says ("pid 123, cardroom serve")."""
    try:
        pid, _, purpose = (data_dir / "serve.lock").read_text().strip().partition(" ")
    except OSError:
        return "another process"
    return f"pid {pid}, {purpose}" if pid else "another process"


# -- the server ------------------------------------------------------------------------
def _quote(value: str) -> str:
    """A Redis config file argument (double-quoted, backslash escapes)."""
    return json.dumps(value, ensure_ascii=False)


def _free_loopback_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _die_with_parent() -> None:
    """In the child before exec: SIGTERM when the parent dies (Linux only)."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)


class LocalRedis:
    """One ``redis-server`` on ``data_dir``, started by the holder of its lock."""

    def __init__(self, data_dir: Path, binary: str) -> None:
        self.data_dir = data_dir
        self.binary = binary
        self.proc: subprocess.Popen[bytes] | None = None
        self.url = ""

    @property
    def log(self) -> Path:
        return self.data_dir / "redis.log"

    def _config(self) -> tuple[str, str]:
        """The config file's text and the URL it makes Redis listen on."""
        work = self.data_dir / "redis"
        work.mkdir(exist_ok=True, mode=0o700)
        sock = self.data_dir / "redis.sock"
        lines = [
            "# Written by cardroom at each start: edits are lost.",
            "daemonize no",
            f"dir {_quote(str(work))}",
            f"logfile {_quote(str(self.log))}",
            "appendonly yes",
            "appendfsync everysec",
            'save ""',
        ]
        if len(str(sock).encode()) <= SOCKET_PATH_MAX:
            lines += ["port 0", f"unixsocket {_quote(str(sock))}", "unixsocketperm 700"]
            url = f"unix://{quote(str(sock))}"
        else:
            port, password = _free_loopback_port(), secrets.token_urlsafe(24)
            lines += ["bind 127.0.0.1", f"port {port}", f"requirepass {password}"]
            url = f"redis://:{password}@127.0.0.1:{port}"
        return "\n".join(lines) + "\n", url

    def start(self) -> str:
        """Start Redis and wait until it has loaded its data; its URL."""
        text, url = self._config()
        conf = self.data_dir / "redis.conf"
        _write_private(conf, text)
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                [self.binary, str(conf)],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=_die_with_parent,
            )
        self.url = url
        try:
            self._wait_ready()
        except BaseException:
            self.stop()
            raise
        _write_private(self.data_dir / "redis.url", url + "\n")
        return url

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        with contextlib.closing(_client(self.url)) as client:
            while True:
                assert self.proc is not None
                if self.proc.poll() is not None:
                    raise DataDirError(
                        f"redis-server exited with status {self.proc.returncode}; "
                        f"its log, {self.log}, ends with:\n{_tail(self.log)}"
                    )
                if _ready(client):
                    return
                if time.monotonic() > deadline:
                    raise DataDirError(f"redis-server did not start; see {self.log}")
                time.sleep(0.05)

    def stop(self) -> int | None:
        """SIGTERM (Redis writes what is left of its append-only file and exits),
        SIGKILL if it has not exited after :data:`STOP_TIMEOUT_S`; its exit status."""
        if self.proc is None:
            return None
        with contextlib.suppress(FileNotFoundError):
            (self.data_dir / "redis.url").unlink()
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode

    @property
    def pid(self) -> int | None:
        return None if self.proc is None else self.proc.pid


def _client(url: str) -> Any:
    return redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=1)


def _ready(client: Any) -> bool:
    with contextlib.suppress(redis.ConnectionError, redis.BusyLoadingError, redis.TimeoutError):
        return bool(client.ping()) and client.info("persistence").get("loading") == 0
    return False


def _write_private(path: Path, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)


def _tail(path: Path, lines: int = 10) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def _stop_orphan(data_dir: Path) -> None:
    """Shut down a Redis left running on the directory by a process that died
    without stopping it (where the kernel does not stop it for us)."""
    try:
        url = (data_dir / "redis.url").read_text().strip()
    except OSError:
        return
    with contextlib.closing(_client(url)) as client, contextlib.suppress(redis.RedisError):
        if client.ping():
            client.shutdown()
    with contextlib.suppress(FileNotFoundError):
        (data_dir / "redis.url").unlink()


def seed_keys_file(data_dir: Path) -> Path:
    """The directory's key for sealing server seeds at rest, drawn the first time."""
    from .store.seeds import new_key_entry

    path = data_dir / "seed-keys"
    if not path.exists():
        _write_private(path, new_key_entry("local") + "\n")
    return path


# -- for cardroom serve and the other commands ------------------------------------------------
@contextlib.contextmanager
def serve_redis(
    data_dir: Path, binary: str, purpose: str = "cardroom serve"
) -> Iterator[LocalRedis]:
    """Take ``data_dir``'s lock (:class:`DataDirError` if another process holds
    it), start its Redis, and stop it and let the lock go on exit."""
    lock = DataDirLock.take(data_dir, purpose)
    if lock is None:
        raise DataDirError(
            f"the data directory {data_dir} is in use by {holder(data_dir)}; "
            "stop that process first, or give this one another --data-dir"
        )
    server = LocalRedis(data_dir, binary)
    try:
        _stop_orphan(data_dir)
        server.start()
        yield server
    finally:
        server.stop()
        lock.release()


@contextlib.contextmanager
def reach(data_dir: Path, purpose: str) -> Iterator[str]:
    """A Redis URL holding ``data_dir``'s games: the running server's (its lock
    is held), else a Redis started for the duration of the ``with``."""
    if not (data_dir / "serve.lock").exists() and not (data_dir / "redis").is_dir():
        raise DataDirError(f"no games here: {data_dir} holds no cardroom data")
    lock = DataDirLock.take(data_dir, purpose)
    if lock is None:
        yield _running_url(data_dir)
        return
    lock.release()  # serve_redis takes it again; a race lost says who won
    binary = redis_server_binary()
    if binary is None:
        raise DataDirError(
            "redis-server is not installed, so the games of the embedded server "
            "live in its memory only; set CARDROOM_REDIS_URL to read games from a Redis"
        )
    with serve_redis(data_dir, binary, purpose) as server:
        yield server.url


def _running_url(data_dir: Path) -> str:
    """The URL of the Redis of the process holding the lock, once it answers."""
    deadline = time.monotonic() + REACH_TIMEOUT_S
    while True:
        with contextlib.suppress(OSError):
            url = (data_dir / "redis.url").read_text().strip()
            with contextlib.closing(_client(url)) as client:
                if _ready(client):
                    return url
        if time.monotonic() > deadline:
            raise DataDirError(
                f"the data directory {data_dir} is held by {holder(data_dir)}, "
                "but its Redis does not answer"
            )
        time.sleep(0.1)
