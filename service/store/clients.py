"""The Redis clients the event store runs on: a standalone ``Redis`` or a
``RedisCluster``, and what differs between them.

Everything the store does touches one hash slot per command or script, so
the same calls work on both; the few places where redis-py's two clients
behave differently are handled here.
"""

from __future__ import annotations

import random
import time
import weakref
from dataclasses import dataclass
from typing import Any, TypeAlias, cast

from redis import Redis
from redis.client import Pipeline
from redis.cluster import ClusterPipeline, RedisCluster
from redis.commands.core import Script

Client: TypeAlias = Redis | RedisCluster
Pipe: TypeAlias = Pipeline | ClusterPipeline


@dataclass(frozen=True, slots=True)
class Durability:
    """How many replicas must hold an append before it is acknowledged."""

    replicas: int = 0
    timeout_ms: int = 1000


_durability: weakref.WeakKeyDictionary[Client, Durability] = weakref.WeakKeyDictionary()


def require_replicas(client: Client, replicas: int, timeout_ms: int) -> None:
    """Make every event store over ``client`` wait for ``replicas`` replicas
    per append (``CARDROOM_REDIS_WAIT_REPLICAS``).

    The requirement belongs to the deployment's Redis, so it travels with
    the connection: :meth:`service.runtime.Runtime.from_settings` sets it
    once, and the API and the workers, which each build their own store on
    the runtime's client, all honour it.
    """
    if replicas < 0 or timeout_ms <= 0:
        raise ValueError("replicas must be >= 0 and timeout_ms > 0")
    _durability[client] = Durability(replicas, timeout_ms)


def durability(client: Client) -> Durability:
    """What :func:`require_replicas` set for ``client`` (no waiting by default)."""
    return _durability.get(client, Durability())


def run_script(
    script: Script,
    script_keys: list[str],
    args: list[Any],
    pipe: Pipe | None = None,
) -> Any:
    """Run ``script`` now, or queue it on ``pipe``.

    On a pipeline the script's text goes with ``EVAL`` (Redis caches it by
    its digest). redis-py refuses ``EVALSHA`` in a cluster pipeline (it could
    not load a script missing on one node mid-pipeline), and in a plain one it
    would first ask ``SCRIPT EXISTS`` on every execution: a round trip more
    than the pipeline itself.
    """
    if pipe is not None:
        queue = cast(Any, pipe)
        return queue.execute_command("EVAL", script.script, len(script_keys), *script_keys, *args)
    return script(keys=script_keys, args=args)


def block_slice_ms(client: Client, longest_ms: int) -> int:
    """The longest blocking read to send on ``client``: ``longest_ms``, or half
    its socket timeout if that is shorter. A read still blocked when the
    socket times out fails, and redis-py's cluster client then takes the
    node for dead (its default socket timeout is 5 s), so a long wait must
    be a loop of reads that each end well before that."""
    if isinstance(client, RedisCluster):
        options = cast(Any, client).nodes_manager.connection_kwargs
    else:
        options = client.connection_pool.connection_kwargs
    timeout = options.get("socket_timeout")
    if not timeout:
        return longest_ms
    return max(1, min(longest_ms, int(float(timeout) * 500)))


def master_of(client: Client, key: str) -> Redis:
    """A standalone client of the master serving ``key`` (``client`` itself
    when it is not a cluster client): for commands that must share one
    connection with a write, such as ``WAIT``."""
    if not isinstance(client, RedisCluster):
        return client
    cluster = cast(Any, client)  # these two methods carry no annotations
    node: Redis = cluster.get_redis_connection(cluster.get_node_from_key(key))
    return node


def refresh_topology(client: Client, attempt: int) -> None:
    """After a redirect or a lost node: back off a little (a failover takes
    the cluster's node timeout and an election), then relearn which node
    serves which slots. Nothing to relearn for a standalone client."""
    time.sleep(min(2.0, 0.1 * 2**attempt) * (0.5 + random.random()))
    if isinstance(client, RedisCluster):
        client.nodes_manager.initialize()
