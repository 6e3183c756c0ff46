"""Local Redis servers for tests and benchmarks: a Redis Cluster of
``redis-server`` processes on loopback, or one standalone server.

Every server runs in the foreground of its own process group, on free ports
of 127.0.0.1, in a private directory, without persistence (``--save ""
--appendonly no``). :meth:`LocalCluster.stop` (also run at interpreter exit,
so an interrupted run leaves nothing behind) kills them and removes the
directory. Starting is bounded in time: a server that does not answer, or a
cluster that does not reach ``cluster_state:ok``, raises with the log's tail.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis
from redis.cluster import ClusterNode, RedisCluster
from redis.crc import key_slot

REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"
REDIS_CLI = shutil.which("redis-cli") or "/usr/bin/redis-cli"


def tools_missing() -> str | None:
    """Why no local server can be started here, or ``None``."""
    for tool in (REDIS_SERVER, REDIS_CLI):
        if not os.access(tool, os.X_OK):
            return f"{tool} is not installed"
    return None


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


@dataclass
class Server:
    """One ``redis-server`` process."""

    port: int
    proc: subprocess.Popen[bytes]
    log: Path
    args: list[str] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}"

    def client(self) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=self.port)

    def kill(self) -> None:
        """SIGKILL the server (as a crash would) and reap it."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(10)

    def restart(self, timeout_s: float = 20) -> None:
        """Start the server again as it was (same port, directory and, for a
        cluster node, the same node id), as after a crash and a restart."""
        if self.proc.poll() is None:
            raise RuntimeError(f"redis-server :{self.port} is still running")
        self.proc = _spawn(self.args)
        _wait_ready(self, time.monotonic() + timeout_s)

    def log_tail(self, lines: int = 20) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"


def _start_server(directory: Path, *extra: str) -> Server:
    port, bus = free_ports(2)
    log = directory / f"redis-{port}.log"
    args = [
        REDIS_SERVER,
        "--bind", "127.0.0.1",
        "--port", str(port),
        "--dir", str(directory),
        "--save", "",
        "--appendonly", "no",
        "--logfile", str(log),
        "--daemonize", "no",
        "--dbfilename", f"dump-{port}.rdb",
    ]  # fmt: skip
    if "--cluster-enabled" in extra:
        args += ["--cluster-port", str(bus), "--cluster-config-file", f"nodes-{port}.conf"]
    args += extra
    return Server(port, _spawn(args), log, args)


def _spawn(args: list[str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )


def _wait_ready(server: Server, deadline: float) -> None:
    client = server.client()
    try:
        while True:
            if server.proc.poll() is not None:
                raise RuntimeError(f"redis-server :{server.port} exited:\n{server.log_tail()}")
            try:
                if client.ping():
                    return
            except redis.ConnectionError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"redis-server :{server.port} did not answer:\n{server.log_tail()}"
                )
            time.sleep(0.05)
    finally:
        client.close()


@dataclass
class LocalCluster:
    """Redis servers started by :func:`start_cluster` or :func:`start_standalone`."""

    directory: Path
    servers: list[Server] = field(default_factory=list)
    cluster: bool = True

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
        return next(s for s in self.servers if s.proc.poll() is None).client()

    def server(self, port: int) -> Server:
        return next(s for s in self.servers if s.port == port)

    def roles(self) -> dict[int, str]:
        """Each answering node's port → ``master`` or ``slave``, as the nodes
        themselves report it (``ROLE``)."""
        out: dict[int, str] = {}
        for server in self.servers:
            if server.proc.poll() is not None:
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
            if server.proc.poll() is None:
                server.kill()
        shutil.rmtree(self.directory, ignore_errors=True)


def start_cluster(
    masters: int = 3,
    replicas: int = 0,
    *,
    node_timeout_ms: int = 5000,
    timeout_s: float = 60,
) -> LocalCluster:
    """A new cluster of ``masters`` masters with ``replicas`` replicas each,
    created by ``redis-cli --cluster create`` and answering ``cluster_state:ok``."""
    directory = Path(tempfile.mkdtemp(prefix="cardroom-cluster-"))
    made = LocalCluster(directory)
    atexit.register(made.stop)
    deadline = time.monotonic() + timeout_s
    try:
        options = ["--cluster-enabled", "yes", "--cluster-node-timeout", str(node_timeout_ms)]
        for _ in range(masters * (1 + replicas)):
            made.servers.append(_start_server(directory, *options))
        for server in made.servers:
            _wait_ready(server, deadline)
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
    while True:
        if all(_node_ok(s, masters, masters * (1 + replicas)) for s in made.servers) and (
            sum(_synced_replica(s) for s in made.servers) == masters * replicas
        ):
            return
        if time.monotonic() > deadline:
            tails = "\n".join(s.log_tail(5) for s in made.servers)
            raise RuntimeError(f"the cluster did not reach cluster_state:ok:\n{tails}")
        time.sleep(0.1)


def _node_ok(server: Server, masters: int, nodes: int) -> bool:
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
        with made.server(port).client() as master:
            pipe = master.pipeline(transaction=False)
            pipe.set(key, 1)
            pipe.wait(replicas, max(1, int((deadline - time.monotonic()) * 1000)))
            pipe.delete(key)
            _, acked, _ = pipe.execute()
            if acked < replicas:
                raise RuntimeError(f"the replicas of :{port} did not acknowledge a write")


def _synced_replica(server: Server) -> bool:
    try:
        with server.client() as client:
            info = client.info("replication")
    except redis.RedisError:
        return False
    return bool(info.get("role") == "slave" and info.get("master_link_status") == "up")


def start_standalone(*extra: str, timeout_s: float = 20) -> LocalCluster:
    """One standalone ``redis-server``, configured like a cluster node otherwise."""
    directory = Path(tempfile.mkdtemp(prefix="cardroom-redis-"))
    made = LocalCluster(directory, cluster=False)
    atexit.register(made.stop)
    try:
        made.servers.append(_start_server(directory, *extra))
        _wait_ready(made.servers[0], time.monotonic() + timeout_s)
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
