"""One local ``redis-server`` (:class:`RedisServer`), either on the deploy's
``deploy/redis.conf`` and ``deploy/users.acl`` or without persistence, and the
helpers that make those files fit a local run (:func:`local_redis_conf`,
:func:`acl_with_admin`).

The deploy's files are read from the source checkout (:data:`ROOT`).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import time
from pathlib import Path
from typing import Any, Final

import redis

from service.devstack.procs import ROOT, Proc, free_ports, wait_for

REDIS_CONF: Final = ROOT / "deploy" / "redis.conf"
REDIS_SERVER: Final = shutil.which("redis-server") or "/usr/bin/redis-server"
REDIS_CLI: Final = shutil.which("redis-cli") or "/usr/bin/redis-cli"


def tools_missing() -> str | None:
    """Why no local Redis server or cluster can be started here, or ``None``."""
    for tool in (REDIS_SERVER, REDIS_CLI):
        if not os.access(tool, os.X_OK):
            return f"{tool} is not installed"
    return None


USERS_ACL: Final = ROOT / "deploy" / "users.acl"
DEPLOY_USER: Final = "cardroom"
DEPLOY_PASSWORD: Final = "change-me"
"""The user the service logs in as and the placeholder password whose SHA-256
``deploy/users.acl`` ships with."""

ADMIN_USER: Final = "admin"
ADMIN_PASSWORD: Final = "admin-for-tests"
"""A user the tests may add to the deploy's ACL (:func:`acl_with_admin`) to look
at what the server saw: ``INFO commandstats``, ``ACL LOG``, ``SCAN``."""


def acl_with_admin(directory: Path) -> Path:
    """``deploy/users.acl`` as it ships, byte for byte, with one line appended: user
    :data:`ADMIN_USER`, who may run everything. Written to ``directory``; give it
    to :class:`RedisServer` (``aclfile``) or :func:`running_stack`."""
    shipped = USERS_ACL.read_bytes()
    admin = f"user {ADMIN_USER} on >{ADMIN_PASSWORD} ~* &* +@all\n".encode()
    path = directory / "users-with-admin.acl"
    path.write_bytes(shipped + (b"" if shipped.endswith(b"\n") else b"\n") + admin)
    return path


LOCAL_OVERRIDES: Final = ("port", "bind", "dir")
"""Directives of the deploy's Redis config that a local server sets on its command line."""


def local_redis_conf(deploy_conf: str, aclfile: Path = USERS_ACL) -> str:
    """The deploy's Redis config with the directives of :data:`LOCAL_OVERRIDES` left out
    and ``aclfile`` pointing at the repository's ``deploy/users.acl`` (the container's
    path does not exist here).

    Everything else (the ACL, AOF on, ``appendfsync always``, no eviction…) is
    kept verbatim. Overriding on the command line alone is not enough: Redis
    applies ``dir /data`` from the file first and stops if that does not exist.
    """
    kept = []
    for line in deploy_conf.splitlines():
        words = line.split()
        if words and words[0].lower() in LOCAL_OVERRIDES:
            kept.append(f"# set on the command line: {line}")
        elif words and words[0].lower() == "aclfile":
            kept.append(f"aclfile {aclfile}")
        else:
            kept.append(line)
    return "\n".join(kept) + "\n"


class RedisServer:
    """One ``redis-server`` on a free loopback port, files in ``directory``.

    With ``deploy=True`` it runs with the deploy's ``deploy/redis.conf`` and
    ``deploy/users.acl`` (AOF, ``appendfsync always``, the default user off; its
    clients log in as the service's user; ``aclfile`` stands in for
    ``users.acl``) and keeps its data in
    ``redis-<port>-data``; otherwise without persistence (``--save ""
    --appendonly no``) and with the default user.
    ``options`` are further command-line directives; ``--cluster-enabled yes``
    among them makes a cluster node, with a bus port and nodes file of its own.
    Starting again reuses the port, the directory and (for a cluster node) the
    node id, as after a crash and a restart.
    """

    def __init__(
        self, directory: Path, *options: str, deploy: bool = False, aclfile: Path = USERS_ACL
    ) -> None:
        self.directory = directory
        self.deploy = deploy
        self.port, bus = free_ports(2)
        name = f"redis-{self.port}"
        log = directory / f"{name}.log"
        common = ["--port", str(self.port), "--bind", "127.0.0.1", "--logfile", str(log)]
        if deploy:
            data = directory / f"{name}-data"
            data.mkdir(parents=True, exist_ok=True)
            conf = directory / f"{name}.conf"
            conf.write_text(local_redis_conf(REDIS_CONF.read_text(), aclfile))
            args = [REDIS_SERVER, str(conf), *common, "--dir", str(data)]
        else:
            args = [
                REDIS_SERVER, *common,
                "--dir", str(directory),
                "--save", "",
                "--appendonly", "no",
                "--dbfilename", f"dump-{self.port}.rdb",
            ]  # fmt: skip
        args += ["--daemonize", "no"]
        if "--cluster-enabled" in options:
            args += ["--cluster-port", str(bus), "--cluster-config-file", f"nodes-{self.port}.conf"]
        args += options
        self.proc = Proc(name, args, log)

    def __repr__(self) -> str:
        return f"RedisServer(:{self.port}, {'running' if self.running else 'stopped'})"

    @property
    def url(self) -> str:
        """The URL the service is given (with the deploy's user and password, for a
        server on the deploy's ACL)."""
        if self.deploy:
            return f"redis://{DEPLOY_USER}:{DEPLOY_PASSWORD}@127.0.0.1:{self.port}"
        return f"redis://127.0.0.1:{self.port}"

    @property
    def running(self) -> bool:
        return self.proc.running

    def admin_client(self, **options: Any) -> redis.Redis:
        """A client logged in as :data:`ADMIN_USER` (a server on :func:`acl_with_admin`)."""
        return self.client(username=ADMIN_USER, password=ADMIN_PASSWORD, **options)

    def client(self, **options: Any) -> redis.Redis:
        """A client of this server alone (bytes replies; 10 s socket timeout unless given)."""
        options.setdefault("socket_timeout", 10)
        if self.deploy:
            options.setdefault("username", DEPLOY_USER)
            options.setdefault("password", DEPLOY_PASSWORD)
        return redis.Redis(host="127.0.0.1", port=self.port, **options)

    def start(self, timeout_s: float = 30) -> RedisServer:
        """Start (again) and wait until it serves."""
        self.proc.start()
        self.wait_ready(time.monotonic() + timeout_s)
        return self

    def wait_ready(self, deadline: float) -> None:
        """Until the server answers PING and has finished loading its data."""
        client = self.client()

        def alive() -> None:
            if not self.proc.running:
                raise RuntimeError(f"redis-server :{self.port} exited:\n{self.proc.log_tail()}")

        def ready() -> bool:
            with contextlib.suppress(redis.ConnectionError, redis.BusyLoadingError):
                return bool(client.ping()) and client.info("persistence").get("loading") == 0
            return False

        try:
            wait_for(
                ready,
                deadline,
                lambda: f"redis-server :{self.port} did not answer:\n{self.proc.log_tail()}",
                alive=alive,
            )
        finally:
            client.close()

    def stop(self) -> int | None:
        """SIGTERM: Redis finishes writing its data and exits (a clean shutdown)."""
        return self.proc.stop(20)

    def kill(self) -> None:
        """SIGKILL: no shutdown at all (what ``appendfsync always`` is for)."""
        self.proc.kill()

    def restart(self, *, kill: bool = False, timeout_s: float = 30) -> None:
        """Stop (or kill) and start again on the same port and directory."""
        if kill:
            self.kill()
        else:
            self.stop()
        self.start(timeout_s)

    def log_tail(self, lines: int = 20) -> str:
        return self.proc.log_tail(lines)
