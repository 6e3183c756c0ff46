"""Local processes for the tests and the benchmarks: Redis, a Redis Cluster, the
API under gunicorn, ``cardroom worker`` and ``cardroom scheduler``.

Everything runs on 127.0.0.1 and free ports, in a private directory, as the
deployment runs it, configured through ``CARDROOM_*`` variables only. Each
process runs in its own process group with its own log file in that
directory; every wait for a process to be ready is bounded in time and, when
it fails, says why with the tail of the log. Whatever is started is stopped
at interpreter exit too, so an interrupted run leaves nothing behind. The
machine's shared Redis on port 6379 is never touched: only a caller that
passes its URL (to :func:`stack_env` or a process's environment) uses it.

What it offers:

Processes
    :func:`free_ports`, :func:`free_port`: ports of 127.0.0.1 that were free.
    :class:`Proc`: one process (its own group, its log file) that can be
    started, stopped (SIGTERM, then SIGKILL), killed as a crash would
    (SIGKILL to the whole group) and started again; its children (gunicorn's
    workers) and the tail of its log. :func:`stop_all` stops many at once.
    :func:`wait_for`: the one bounded readiness poll everything uses.

Redis
    :class:`RedisServer`: one ``redis-server``, either with the deploy's
    ``deploy/redis.conf`` (AOF, ``appendfsync always``; see
    :func:`local_redis_conf`) or without persistence, optionally a cluster
    node; stopped cleanly, killed, and started again on the same port and
    directory (a restart must not look like a new server to the clients).
    :class:`LocalCluster`, :func:`start_cluster`, :func:`start_standalone`,
    :func:`shared_cluster`: a Redis Cluster of local servers (masters and
    replicas, ``cluster_state:ok`` waited for) or one standalone server
    without persistence; :func:`tools_missing` says why none can start here.

The service
    :func:`stack_env`: the variables every process of a stack shares.
    :class:`Stack`: API processes (gunicorn with ``deploy/gunicorn.conf.py``,
    each on a free port), workers, schedulers and any other command sharing
    one environment, optionally with a Redis of its own; waits for
    ``/healthz`` and for gunicorn's workers, checks that everything still
    runs, collects logs, stops it all (Redis last).
    :func:`running_stack`: a whole deployment (Redis with the deploy's AOF
    config, the API, workers, the scheduler) for the duration of a ``with``.
    :func:`create_bot_game`: a table of bots opened over HTTP.
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
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Final

import httpx
import redis
from redis.cluster import ClusterNode, RedisCluster
from redis.crc import key_slot

ROOT: Final = Path(__file__).resolve().parents[1]
BIN: Final = Path(sys.executable).parent
GUNICORN: Final = str(BIN / "gunicorn")
CARDROOM: Final = str(BIN / "cardroom")
GUNICORN_CONF: Final = ROOT / "deploy" / "gunicorn.conf.py"
REDIS_CONF: Final = ROOT / "deploy" / "redis.conf"
REDIS_SERVER: Final = shutil.which("redis-server") or "/usr/bin/redis-server"
REDIS_CLI: Final = shutil.which("redis-cli") or "/usr/bin/redis-cli"
POLL_S: Final = 0.05
"""Interval of readiness polls (a process that is starting offers nothing to block on)."""


# -- processes --------------------------------------------------------------------------
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


# -- Redis ------------------------------------------------------------------------------
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


@dataclass
class LocalCluster:
    """Redis servers without persistence in a private directory, started by
    :func:`start_cluster` (a Redis Cluster) or :func:`start_standalone` (one
    server); stopped at interpreter exit unless :meth:`stop` ran first."""

    directory: Path
    servers: list[RedisServer] = field(default_factory=list)
    cluster: bool = True

    def __post_init__(self) -> None:
        atexit.register(self.stop)

    @property
    def url(self) -> str:
        """A URL of one node (for a cluster: any node lets a client find the rest)."""
        return self.servers[0].url

    def client(self, **options: Any) -> RedisCluster:
        """A cluster client (bytes replies), as the service makes one."""
        make_node: Any = ClusterNode  # its constructor carries no annotations
        seeds = [make_node("127.0.0.1", s.port) for s in self.servers]
        return RedisCluster(startup_nodes=seeds, **options)

    def slot_owners(self) -> dict[int, int]:
        """Each master's port → how many slots it serves (from ``CLUSTER SLOTS``)."""
        with self._any_node() as node:
            owners: dict[int, int] = {}
            for start, end, master, *_ in node.execute_command("CLUSTER SLOTS"):
                port = int(master[1])
                owners[port] = owners.get(port, 0) + int(end) - int(start) + 1
            return owners

    def owner_of(self, key: str) -> int:
        """The port of the master serving ``key``'s slot (asks the cluster)."""
        with self._any_node() as node:
            slot = int(node.execute_command("CLUSTER KEYSLOT", key))
            assert slot == key_slot(key.encode())
            for start, end, master, *_ in node.execute_command("CLUSTER SLOTS"):
                if int(start) <= slot <= int(end):
                    return int(master[1])
        raise LookupError(f"no master serves slot {slot}")

    def _any_node(self) -> redis.Redis:
        """A client of the first server still running (each knows the whole map)."""
        return next(s for s in self.servers if s.running).client()

    def server(self, port: int) -> RedisServer:
        return next(s for s in self.servers if s.port == port)

    def roles(self) -> dict[int, str]:
        """Each answering node's port → ``master`` or ``slave``, as the nodes
        themselves report it (``ROLE``)."""
        out: dict[int, str] = {}
        for server in self.servers:
            if not server.running:
                continue
            try:
                with server.client() as client:
                    role = client.execute_command("ROLE")[0]
            except redis.RedisError:
                continue
            out[server.port] = role.decode() if isinstance(role, bytes) else str(role)
        return out

    def stop(self) -> None:
        """Kill every server and delete the directory; safe to call twice."""
        for server in self.servers:
            server.kill()
        shutil.rmtree(self.directory, ignore_errors=True)
        atexit.unregister(self.stop)


def start_cluster(
    masters: int = 3,
    replicas: int = 0,
    *,
    node_timeout_ms: int = 5000,
    timeout_s: float = 60,
) -> LocalCluster:
    """A new cluster of ``masters`` masters with ``replicas`` replicas each,
    created by ``redis-cli --cluster create`` and answering ``cluster_state:ok``."""
    made = LocalCluster(private_directory("cardroom-cluster-"))
    deadline = time.monotonic() + timeout_s
    try:
        options = ["--cluster-enabled", "yes", "--cluster-node-timeout", str(node_timeout_ms)]
        for _ in range(masters * (1 + replicas)):
            made.servers.append(RedisServer(made.directory, *options))
        for server in made.servers:
            server.proc.start()
        for server in made.servers:
            server.wait_ready(deadline)
        nodes = [f"127.0.0.1:{s.port}" for s in made.servers]
        create = [REDIS_CLI, "--cluster", "create", *nodes, "--cluster-yes"]
        subprocess.run(
            [*create, "--cluster-replicas", str(replicas)],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            timeout=max(1.0, deadline - time.monotonic()),
        )
        _wait_cluster_ok(made, masters, replicas, deadline)
        if replicas:
            _warm_up_replication(made, replicas, deadline)
    except BaseException:
        made.stop()
        raise
    return made


def _wait_cluster_ok(made: LocalCluster, masters: int, replicas: int, deadline: float) -> None:
    """Until every node says ``cluster_state:ok`` and knows all the nodes and
    masters, and every replica has finished its first sync."""

    def ready() -> bool:
        nodes = masters * (1 + replicas)
        return all(_node_ok(s, masters, nodes) for s in made.servers) and (
            sum(_synced_replica(s) for s in made.servers) == masters * replicas
        )

    def failure() -> str:
        tails = "\n".join(s.log_tail(5) for s in made.servers)
        return f"the cluster did not reach cluster_state:ok:\n{tails}"

    wait_for(ready, deadline, failure, interval_s=0.1)


def _node_ok(server: RedisServer, masters: int, nodes: int) -> bool:
    try:
        with server.client() as client:
            info = client.execute_command("CLUSTER INFO")
    except redis.RedisError:
        return False
    # redis-py parses the reply into a dict; older versions hand back the text.
    if isinstance(info, bytes | str):
        text = info.decode() if isinstance(info, bytes) else info
        info = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
    fields = {str(k): str(v) for k, v in info.items()}
    return (
        fields.get("cluster_state") == "ok"
        and int(fields.get("cluster_slots_ok", 0)) == 16384
        and int(fields.get("cluster_known_nodes", 0)) == nodes
        and int(fields.get("cluster_size", 0)) == masters
    )


def _warm_up_replication(made: LocalCluster, replicas: int, deadline: float) -> None:
    """One acknowledged write per master, so that no test's first ``WAIT``
    waits for a freshly synced replica's first periodic acknowledgement."""
    owners = set(made.slot_owners())
    i = 0
    while owners:
        key = f"warm-up-{i}"
        port = made.owner_of(key)
        i += 1
        if port not in owners:
            continue
        owners.discard(port)
        left_s = max(0.001, deadline - time.monotonic())
        with made.server(port).client(socket_timeout=left_s + 5) as master:
            pipe = master.pipeline(transaction=False)
            pipe.set(key, 1)
            pipe.wait(replicas, max(1, int(left_s * 1000)))
            pipe.delete(key)
            _, acked, _ = pipe.execute()
            if acked < replicas:
                raise RuntimeError(f"the replicas of :{port} did not acknowledge a write")


def _synced_replica(server: RedisServer) -> bool:
    try:
        with server.client() as client:
            info = client.info("replication")
    except redis.RedisError:
        return False
    return bool(info.get("role") == "slave" and info.get("master_link_status") == "up")


def start_standalone(*options: str, timeout_s: float = 20) -> LocalCluster:
    """One standalone ``redis-server`` without persistence; ``options`` are further
    directives (``--replicaof HOST PORT`` makes it a replica)."""
    made = LocalCluster(private_directory("cardroom-redis-"), cluster=False)
    try:
        made.servers.append(RedisServer(made.directory, *options).start(timeout_s))
    except BaseException:
        made.stop()
        raise
    return made


_shared: LocalCluster | None = None
_users = 0


@contextlib.contextmanager
def shared_cluster() -> Iterator[LocalCluster]:
    """One 3-master cluster for every fixture of a test session that asks
    for it (each directory's ``conftest`` has its own session fixture);
    stopped when the last of them is torn down."""
    global _shared, _users
    if _shared is None:
        _shared = start_cluster(3)
    _users += 1
    try:
        yield _shared
    finally:
        _users -= 1
        if _users == 0:
            _shared.stop()
            _shared = None


# -- the service ------------------------------------------------------------------------
def stack_env(
    redis_url: str,
    *,
    cluster: bool = False,
    queue_url: str | None = None,
    queue_name: str | None = None,
    **extra: str,
) -> dict[str, str]:
    """The variables every process of a stack shares: this process's environment
    (``PYTHONPATH`` included) without any ``CARDROOM_*`` of its own, then the
    store's and the queue's Redis, no bot delay, quiet logs, the rate limit out
    of the way and a short keep-alive on live streams; ``extra`` last."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CARDROOM_")}
    env.update(
        {
            "CARDROOM_REDIS_URL": redis_url,
            "CARDROOM_REDIS_CLUSTER": "1" if cluster else "0",
            "CARDROOM_BOT_DELAY_S": "0",
            "CARDROOM_LOG_LEVEL": "WARNING",
            "CARDROOM_RATE_LIMIT": "1000000/second",
            **{
                f"CARDROOM_LIMIT_{b}": "1000000/second"
                for b in ("MOVES", "GAMES", "SEATS", "READS")
            },
            "CARDROOM_STREAM_KEEPALIVE_S": "1",
        }
    )
    if queue_url is not None:
        env["CARDROOM_QUEUE_URL"] = queue_url
    if queue_name is not None:
        env["CARDROOM_QUEUE_NAME"] = queue_name
    env.update(extra)
    return env


class Stack:
    """API processes, workers, schedulers and other commands sharing one
    environment and one directory (their logs), with a Redis of its own when
    ``redis`` is given.

    Processes are named ``api-N``, ``worker-N``, ``scheduler-N`` or after the
    kind given to :meth:`start_process` (N counts from 0 per kind and is never
    reused). :meth:`stop` ends them all, Redis
    last; it also runs at interpreter exit.
    """

    def __init__(
        self,
        env: dict[str, str],
        *,
        directory: Path | None = None,
        redis: RedisServer | None = None,
        keep: bool = False,
    ) -> None:
        self.env = env
        self.directory = directory or private_directory("cardroom-stack-")
        self.keep = keep
        self._redis = redis
        self.apis: list[Proc] = []
        self.api_urls: list[str] = []
        self.workers: list[Proc] = []
        self.schedulers: list[Proc] = []
        self.others: list[Proc] = []
        self._counts: dict[str, int] = {}
        atexit.register(self.stop)

    @property
    def redis(self) -> RedisServer:
        """The stack's own Redis (a stack on someone else's Redis has none)."""
        if self._redis is None:
            raise RuntimeError("this stack runs on a Redis it did not start")
        return self._redis

    @property
    def api_url(self) -> str:
        """The first API process's base URL, or ``""`` when none was started."""
        return self.api_urls[0] if self.api_urls else ""

    @property
    def procs(self) -> list[Proc]:
        """Every process of the stack but Redis."""
        return [*self.apis, *self.schedulers, *self.workers, *self.others]

    def start_process(self, kind: str, args: list[str], **extra_env: str) -> Proc:
        """Any command as a process of the stack, named ``kind-N``, with the
        stack's environment and ``extra_env``; listed in :attr:`others`."""
        proc = self._proc(kind, args, {**self.env, **extra_env})
        self.others.append(proc)
        return proc

    def _proc(self, kind: str, args: list[str], env: dict[str, str]) -> Proc:
        n = self._counts.get(kind, 0)
        self._counts[kind] = n + 1
        name = f"{kind}-{n}"
        return Proc(name, args, self.directory / f"{name}.log", env).start()

    def start_api(self, processes: int = 1, threads: int = 8, **extra_env: str) -> str:
        """gunicorn with the deploy's config on a free port, ``processes`` gunicorn
        workers of ``threads`` threads; returns its base URL."""
        port = free_port()
        env = {
            **self.env,
            "CARDROOM_BIND": f"127.0.0.1:{port}",
            "CARDROOM_API_PROCESSES": str(processes),
            "CARDROOM_API_THREADS": str(threads),
            **extra_env,
        }
        args = [GUNICORN, "-c", str(GUNICORN_CONF), "service.api:create_app()"]
        self.apis.append(self._proc("api", args, env))
        url = f"http://127.0.0.1:{port}"
        self.api_urls.append(url)
        return url

    def start_worker(self, **extra_env: str) -> Proc:
        """One ``cardroom worker``."""
        proc = self._proc("worker", [CARDROOM, "worker"], {**self.env, **extra_env})
        self.workers.append(proc)
        return proc

    def start_scheduler(self, interval_s: int = 1, **extra_env: str) -> Proc:
        """One ``cardroom scheduler`` (the reconciler), running every ``interval_s``."""
        args = [CARDROOM, "scheduler", "--interval", str(interval_s)]
        proc = self._proc("scheduler", args, {**self.env, **extra_env})
        self.schedulers.append(proc)
        return proc

    def wait_healthy(self, timeout_s: float = 60) -> None:
        """Until every API process answers ``/healthz`` (and every process still runs)."""
        deadline = time.monotonic() + timeout_s
        with httpx.Client(timeout=2) as http:
            for url in self.api_urls:
                wait_for(
                    partial(_healthy, http, url),
                    deadline,
                    partial(self._unhealthy, url),
                    alive=self.check_running,
                )

    def _unhealthy(self, url: str) -> str:
        return f"{url} did not become healthy:\n{self.logs()}"

    def wait_api_workers(self, count: int, timeout_s: float = 60, *, api: int = 0) -> list[int]:
        """Until gunicorn's master of API process ``api`` has ``count`` worker
        processes; their pids."""
        master = self.apis[api]
        wait_for(
            lambda: len(master.children()) >= count,
            time.monotonic() + timeout_s,
            lambda: f"gunicorn has {len(master.children())} workers, not {count}",
            alive=self.check_running,
        )
        return master.children()

    def check_running(self) -> None:
        """Raise if a process of the stack has exited (one killed on purpose and
        removed from its list is not looked at)."""
        for proc in self.procs:
            if proc.started and not proc.running:
                raise RuntimeError(
                    f"{proc.name} exited with {proc.returncode}:\n{proc.log_tail(30)}"
                )

    def logs(self, lines: int = 15) -> str:
        """The tail of every process's log, Redis's too."""
        procs = [*self.procs, *([self._redis.proc] if self._redis is not None else [])]
        return "\n".join(f"--- {p.name}\n{p.log_tail(lines)}" for p in procs)

    def stop(self) -> None:
        """Every process (SIGTERM, SIGKILL after 10 s), then Redis (a clean
        shutdown); the directory goes too unless ``keep`` (print :meth:`logs`
        first to keep what they say). Safe to call twice."""
        stop_all(self.procs, 10)
        if self._redis is not None:
            self._redis.stop()
        if not self.keep:
            shutil.rmtree(self.directory, ignore_errors=True)
        atexit.unregister(self.stop)


def _healthy(http: httpx.Client, url: str) -> bool:
    with contextlib.suppress(httpx.HTTPError):
        return http.get(f"{url}/healthz").status_code == 200
    return False


@contextlib.contextmanager
def running_stack(
    *,
    workers: int = 2,
    scheduler: bool = True,
    api: bool = True,
    api_processes: int = 2,
    api_threads: int = 16,
    keep: bool = False,
    redis_options: Iterable[str] = (),
    aclfile: Path = USERS_ACL,
    **env: str,
) -> Iterator[Stack]:
    """A whole deployment, started (Redis with the deploy's config and ACL first,
    then the API, the workers and the scheduler, healthy) and stopped on exit.
    ``redis_options`` are further directives for Redis's command line;
    ``aclfile`` stands in for ``deploy/users.acl``; ``env`` adds or overrides
    ``CARDROOM_*`` variables."""
    directory = private_directory("cardroom-stack-")
    server = RedisServer(directory, *redis_options, deploy=True, aclfile=aclfile)
    env = {**stack_env(server.url), **env}
    stack = Stack(env, directory=directory, redis=server, keep=keep)
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


# -- cardroom serve on its embedded default ------------------------------------------------
class Serve:
    """``cardroom serve`` on its embedded default (no ``CARDROOM_REDIS_URL``): its own
    ``redis-server`` child on ``data_dir``, or the in-process fake Redis when
    ``redis-server`` is not on the ``PATH`` given in ``env``. Started again on the
    same port and data directory, as a player's restart would."""

    def __init__(self, data_dir: Path, log: Path, **env: str) -> None:
        self.data_dir = data_dir
        self.port = free_port()
        base = {k: v for k, v in os.environ.items() if not k.startswith("CARDROOM_")}
        self.env = {"CARDROOM_BOT_DELAY_S": "0", **base, **env}
        args = [CARDROOM, "serve", "--port", str(self.port), "--data-dir", str(data_dir)]
        self.proc = Proc("serve", args, log, self.env)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout_s: float = 60) -> Serve:
        """Start and wait until it answers ``/healthz``."""
        self.proc.start()
        with httpx.Client(timeout=2) as http:
            wait_for(
                partial(_healthy, http, self.url),
                time.monotonic() + timeout_s,
                lambda: f"cardroom serve did not answer:\n{self.proc.log_tail(30)}",
                alive=self._alive,
            )
        return self

    def _alive(self) -> None:
        if not self.proc.running:
            raise RuntimeError(f"cardroom serve exited:\n{self.proc.log_tail(30)}")

    def stop(self) -> int | None:
        """SIGTERM, as a service manager or ``kill`` would; its exit status."""
        return self.proc.stop(30)

    def redis_pid(self) -> int:
        """The pid of its ``redis-server`` child."""
        (pid,) = self.proc.children()
        return pid

    def redis_client(self) -> redis.Redis:
        """A client of its Redis (through the data directory's ``redis.url``)."""
        url = (self.data_dir / "redis.url").read_text().strip()
        return redis.Redis.from_url(url, socket_timeout=10)

    def log_lines(self) -> list[str]:
        return self.proc.log.read_text(errors="replace").splitlines()


def process_gone(pid: int) -> bool:
    """Whether process ``pid`` has exited (a zombie nobody reaped counts as gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True
    return any(
        line.split()[1:2] == ["Z"] for line in status.splitlines() if line.startswith("State:")
    )
