"""A local Redis Cluster (:class:`LocalCluster`, :func:`start_cluster`), one
standalone server without persistence (:func:`start_standalone`) and one
cluster shared by a whole test session (:func:`shared_cluster`).

Whatever is started is stopped at interpreter exit too, so an interrupted run
leaves nothing behind.
"""

from __future__ import annotations

import atexit
import contextlib
import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis
from redis.cluster import ClusterNode, RedisCluster
from redis.crc import key_slot

from service.devstack.procs import private_directory, wait_for
from service.devstack.redis_server import REDIS_CLI, RedisServer


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
