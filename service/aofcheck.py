"""The start-up check for an ACL that would lose games on Redis's next restart.

While Redis loads its append-only file it re-checks every MULTI/EXEC in it
against the ``default`` user's permissions and silently drops the
transactions that user may not run (redis/redis#14541, fixed by #14545;
valkey-io/valkey#3983). Every append of cardroom's reaches the AOF as a
MULTI/EXEC (a script's writes are propagated that way), and so do RQ's
pipelines: with AOF on and a ``default`` user that may not write cardroom's
keys, every game written since the last rewrite is gone after a restart.

At start every process asks its Redis (each node of a cluster, and the RQ
broker when it is another server) ``INFO persistence`` and, when
``aof_enabled`` is 1, ``ACL DRYRUN default …`` for each write that reaches the
AOF inside a transaction (:data:`PROBES`). ``ACL DRYRUN`` changes nothing and
tells only whether the user may run the command on the key; the shipped ACL
grants ``cardroom`` ``+acl|dryrun`` for this. What happens then is
``CARDROOM_REDIS_AOF_ACL_CHECK``: ``refuse`` (the default) stops the process
with :class:`AofAclHazard`, ``warn`` logs the same message as an error and
goes on (for a Redis with the fix), ``off`` does not look.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final, Literal

import redis
from redis.cluster import RedisCluster

log = logging.getLogger("cardroom.redis")

Mode = Literal["refuse", "warn", "off"]

FIX: Final = (
    "give the default user the full grant and keep it off "
    "(`user default off resetpass ~* &* +@all` in users.acl)"
)
"""What the messages tell an operator to do (docs/operations.md, "The default user
and the AOF")."""

PROBES: Final[tuple[tuple[str, ...], ...]] = (
    # The scripts' writes (appends, projections, timers, drains, rate budgets),
    # as Redis propagates them: EXPIRE and PEXPIRE become PEXPIREAT, BRPOP RPOP.
    ("XADD", "cardroom:{probe}:events", "1-1", "e", "x"),
    ("HSET", "cardroom:{probe}:meta", "f", "x"),
    ("HSETNX", "cardroom:{probe}:meta", "f", "x"),
    ("HDEL", "cardroom:{probe}:meta", "f"),
    ("HINCRBY", "cardroom:{probe}:meta", "f", "1"),
    ("SET", "cardroom:{probe}:secret", "x"),
    ("INCR", "cardroom:{probe}:n"),
    ("INCRBY", "cardroom:{probe}:n", "1"),
    ("DEL", "cardroom:{probe}:secret"),
    ("PEXPIREAT", "cardroom:{probe}:secret", "1"),
    ("ZADD", "cardroom:{probe}:timers", "1", "x"),
    ("ZREM", "cardroom:{probe}:timers", "x"),
    ("SADD", "cardroom:{probe}:set", "x"),
    ("LPUSH", "cardroom:{probe}:list", "x"),
    ("RPOP", "cardroom:{probe}:list"),
    # RQ's MULTI/EXEC pipelines: enqueueing, starting, finishing, failing a
    # job, a worker's registration and heartbeat, cleaning its registries.
    ("HSET", "rq:job:probe", "status", "queued"),
    ("HINCRBY", "rq:worker:probe", "successful_job_count", "1"),
    ("RPUSH", "rq:queue:probe", "x"),
    ("LREM", "rq:queue:probe", "1", "x"),
    ("ZADD", "rq:wip:probe", "1", "x"),
    ("ZREM", "rq:wip:probe", "x"),
    ("ZREMRANGEBYSCORE", "rq:wip:probe", "0", "1"),
    ("SADD", "rq:workers", "x"),
    ("SREM", "rq:workers", "x"),
    ("PERSIST", "rq:job:probe"),
    ("PEXPIREAT", "rq:job:probe", "1"),
    ("RENAME", "rq:job:probe", "rq:job:probe2"),
    ("DEL", "rq:job:probe"),
)
"""``ACL DRYRUN default`` is asked each of these, on keys like the service's."""


class AofAclHazard(ValueError):
    """Redis's configuration would drop the service's writes on its next restart."""


@dataclass(frozen=True)
class Finding:
    """What one server said: ``safe`` (no AOF, or a default user that may run
    every probe), ``hazard`` (AOF on, ``denied`` probes) or ``unknown``
    (``reason`` says why it could not tell)."""

    server: str
    verdict: Literal["safe", "hazard", "unknown"]
    denied: tuple[str, ...] = ()
    reason: str = ""

    def message(self) -> str:
        if self.verdict == "hazard":
            shown = ", ".join(self.denied[:4]) + (", …" if len(self.denied) > 4 else "")
            return (
                f"Redis at {self.server} has the AOF on and its default user may not run "
                f"{shown} ({len(self.denied)} of the {len(PROBES)} kinds of write the service "
                "and RQ make in transactions): while it loads the AOF after a restart, Redis "
                "checks every transaction against the default user and drops those it may "
                f"not run, so games would be lost. Fix: {FIX}. If this Redis has the fix "
                "(redis/redis#14545), set CARDROOM_REDIS_AOF_ACL_CHECK=warn."
            )
        return (
            f"cannot check whether Redis at {self.server} would keep the service's writes "
            f"across a restart ({self.reason}). Grant the service's user `+acl|dryrun` so "
            f"that it can, or make sure yourself: with the AOF on, {FIX}."
        )


def inspect(client: redis.Redis, server: str) -> Finding:
    """Ask one standalone server (a client of it) about the hazard."""
    try:
        aof = client.info("persistence").get("aof_enabled")
    except redis.ResponseError as exc:
        return Finding(server, "unknown", reason=f"INFO persistence: {exc}")
    if str(aof) != "1":
        return Finding(server, "safe")
    pipe: Any = client.pipeline(transaction=False)  # execute_command carries no annotations
    for probe in PROBES:
        pipe.execute_command("ACL", "DRYRUN", "default", *probe)
    replies = pipe.execute(raise_on_error=False)
    denied: list[str] = []
    for probe, reply in zip(PROBES, replies, strict=True):
        if isinstance(reply, redis.ResponseError):
            return Finding(server, "unknown", reason=f"ACL DRYRUN: {reply}")
        if reply not in (b"OK", "OK"):
            denied.append(f"{probe[0]} {probe[1]}")
    return Finding(server, "hazard", tuple(denied)) if denied else Finding(server, "safe")


def servers(client: Any) -> Iterable[tuple[str, redis.Redis]]:
    """Each server behind ``client`` with a name: every node of a cluster
    (masters and replicas each load an AOF of their own), else the one server."""
    if isinstance(client, RedisCluster):
        cluster: Any = client  # its node methods carry no annotations
        for node in cluster.get_nodes():
            yield node.name, cluster.get_redis_connection(node)
        return
    kwargs = client.connection_pool.connection_kwargs
    where = kwargs.get("path") or f"{kwargs.get('host', '?')}:{kwargs.get('port', '?')}"
    yield str(where), client


def check(clients: Iterable[Any], mode: Mode) -> list[Finding]:
    """Check every server behind ``clients`` (each once); refuse (raise
    :class:`AofAclHazard`) or log what was found, per ``mode``."""
    if mode == "off":
        return []
    findings: list[Finding] = []
    seen: set[str] = set()
    for client in clients:
        for server, node in servers(client):
            if server in seen:
                continue
            seen.add(server)
            try:
                findings.append(inspect(node, server))
            except (redis.ConnectionError, redis.TimeoutError) as exc:
                reason = f"{type(exc).__name__}: {exc}"
                findings.append(Finding(server, "unknown", reason=reason))
    for finding in findings:
        if finding.verdict == "hazard" and mode == "refuse":
            raise AofAclHazard(finding.message())
        if finding.verdict != "safe":
            level = logging.ERROR if finding.verdict == "hazard" else logging.WARNING
            log.log(level, finding.message(), extra={"server": finding.server})
    return findings
