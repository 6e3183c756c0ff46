"""The process's connections: the event store's Redis, the RQ broker, the queue.

One :class:`Runtime` is built per process from :class:`~service.config.Settings`;
building it checks that Redis would keep the service's writes across a restart
(:mod:`service.aofcheck`).
With no ``CARDROOM_REDIS_URL`` everything lives on one in-process fake Redis
(the embedded default) and jobs run on an in-process worker thread.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import redis
from rq import Queue

from . import aofcheck, requestid
from .config import Settings
from .store.clients import require_replicas
from .store.seeds import SeedCipher, default_cipher, is_in_process

if TYPE_CHECKING:
    from .games import GameService
    from .repository import Followup, StartDrain
    from .store import Dispatch, EventStore
    from .store.drains import Drains
    from .store.followups import Followups
    from .store.locks import PassLocks
    from .webhooks.outbound import Outbound
    from .webhooks.subscriptions import Webhooks

FOLLOWUP_JOB = "workers.jobs.process_game"
DRAIN_JOB = "workers.jobs.drain_followups"
WORKER_COUNT_TTL_S = 10.0
"""How long a process trusts its count of the workers on the queue."""


def connect(url: str, *, cluster: bool = False, **options: Any) -> Any:
    """A redis-py client for ``url`` (bytes replies).

    A cluster client when asked, or when the URL says ``redis+cluster://`` (or
    ``rediss+cluster://``); such a URL may list several seed nodes,
    ``redis+cluster://[user:pass@]host1:port1,host2:port2``, so that one seed
    being down does not stop a process from starting. The client learns the
    rest of the cluster from whichever seed answers. ``options`` go to the
    client (timeouts; ``password``, from CARDROOM_REDIS_PASSWORD_FILE, stands
    in for the URL's).
    """
    if options.get("password") is None:
        options.pop("password", None)
    scheme, sep, rest = url.partition("://")
    if not sep:
        raise ValueError(f"not a Redis URL: {url!r}")
    if scheme.endswith("+cluster"):
        scheme, cluster = scheme.removesuffix("+cluster"), True
    if not cluster:
        return redis.Redis.from_url(url, **options)
    from redis.cluster import ClusterNode, RedisCluster

    netloc, slash, tail = rest.partition("/")
    auth, at, hosts = netloc.rpartition("@")
    first, *others = hosts.split(",")
    make_node: Any = ClusterNode  # its constructor carries no annotations
    seeds = [make_node(*_host_port(other)) for other in others]
    return RedisCluster.from_url(
        f"{scheme}://{auth}{at}{first}{slash}{tail}", startup_nodes=seeds or None, **options
    )


def _host_port(seed: str) -> tuple[str, int]:
    host, _, port = seed.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(f"bad cluster seed {seed!r}: use host:port")
    return host.strip("[]"), int(port)


class LocalWorker(Protocol):
    """A worker thread of this process, as :class:`Runtime` knows it."""

    def heartbeat_age_s(self) -> float | None: ...


@dataclass
class Runtime:
    settings: Settings
    redis: Any
    queue_redis: Any
    fake_server: Any = None
    _queue: Queue | None = field(default=None, init=False)
    _followups: Followups | None = field(default=None, init=False)
    _drains: Drains | None = field(default=None, init=False)
    _workers: tuple[float, int] = field(default=(0.0, 1), init=False)
    _store: EventStore | None = field(default=None, init=False)
    _service: GameService | None = field(default=None, init=False)
    _outbound: Outbound | None = field(default=None, init=False)
    _webhooks: Webhooks | None = field(default=None, init=False)
    wake: threading.Event = field(default_factory=threading.Event, init=False)
    """Set on every enqueue: the embedded worker waits on it instead of polling."""
    local_worker: LocalWorker | None = field(default=None, init=False)
    """The worker running in this process (``cardroom serve``'s embedded one), if
    any: ``/readyz`` reads its heartbeat instead of RQ's (:mod:`service.heartbeats`)."""

    @classmethod
    def from_settings(cls, settings: Settings) -> Runtime:
        if settings.redis_url is None:
            import fakeredis

            server = fakeredis.FakeServer()
            store_client = fakeredis.FakeRedis(server=server)
            return cls(settings, store_client, fakeredis.FakeRedis(server=server), server)
        options = {**timeouts(settings), "password": settings.redis_password()}
        store_client = connect(settings.redis_url, cluster=settings.redis_cluster, **options)
        if settings.redis_wait_replicas:
            require_replicas(
                store_client, settings.redis_wait_replicas, settings.redis_wait_timeout_ms
            )
        if settings.queue_url is not None:
            queue_client = connect(settings.queue_url, **options)
        elif settings.redis_cluster:
            raise ValueError(
                "CARDROOM_QUEUE_URL is required with a Redis Cluster (RQ needs a standalone Redis)"
            )
        else:
            queue_client = connect(settings.redis_url, **options)
        aofcheck.check([store_client, queue_client], settings.redis_aof_acl_check)
        return cls(settings, store_client, queue_client)

    @property
    def embedded(self) -> bool:
        return self.fake_server is not None

    @property
    def store(self) -> EventStore:
        """The process's one event store, built on first use from the settings:
        its idempotency records' lifetime, the follow-up lease, the seed keys."""
        if self._store is None:
            from .store import EventStore

            self._store = EventStore(
                self.redis,
                idempotency_ttl_s=self.settings.idempotency_ttl_s,
                followup_lease_ms=int(self.settings.followup_lease_s * 1000),
                seeds=self.seed_cipher(),
            )
        return self._store

    def service(
        self, followup: Followup | None = None, start_drain: StartDrain | None = None
    ) -> GameService:
        """The process's one application service over :attr:`store`, built on
        first use. Its follow-up callbacks are those of the first caller: the
        API's wait for the answer to go out (and send at once outside a
        request, so the workers of the same process use them as they are)."""
        if self._service is None:
            from .games import GameService

            self._service = GameService(self, self.store, followup, start_drain)
        return self._service

    def seed_cipher(self) -> SeedCipher | None:
        """The cipher sealing server seeds at rest, from the settings (see
        :func:`service.store.seeds.default_cipher`)."""
        keys = self.settings.seed_keys
        return default_cipher(
            is_in_process(self.redis),
            keys.get_secret_value() if keys is not None else None,
            self.settings.seed_keys_file,
        )

    @property
    def queue(self) -> Queue:
        if self._queue is None:
            self._queue = Queue(self.settings.queue_name, connection=self.queue_redis)
        return self._queue

    @property
    def locks(self) -> PassLocks:
        """The periodic passes' locks (:mod:`service.store.locks`), for a process
        that runs them without an event store of its own."""
        from .store.locks import PassLocks

        return PassLocks(self.redis)

    def bound_store_pool(self, connections: int, wait_s: float) -> None:
        """Give the store's standalone client a blocking pool of ``connections``
        (the same connection options): a burst of requests waits up to ``wait_s``
        for a connection instead of opening one each. A cluster client, or the
        in-process fake, keeps its pools."""
        client = self.redis
        pool = getattr(client, "connection_pool", None)
        if type(client) is not redis.Redis or type(pool) is not redis.ConnectionPool:
            return
        client.connection_pool = redis.BlockingConnectionPool(  # type: ignore[no-untyped-call]
            connection_class=pool.connection_class,
            max_connections=connections,
            timeout=wait_s,
            **pool.connection_kwargs,
        )
        pool.disconnect()

    def widen_store_pool(self, connections: int) -> None:
        """Let the store's client open ``connections`` connections (see
        :func:`widen_pool`)."""
        widen_pool(self.redis, connections)

    @property
    def followups(self) -> Followups:
        """The games' follow-up markers and timers (:mod:`service.store.followups`)."""
        if self._followups is None:
            from .store.followups import Followups

            self._followups = Followups(
                self.redis, self.settings.followup_lease_s, self.enqueue_followup
            )
        return self._followups

    def job_options(self, game_id: str, version: int) -> dict[str, Any]:
        """What every cardroom job carries: no result kept (a follow-up's effects
        are in the stream), a failure kept a week, and the game and version it
        is about (in its meta, for the failure log). Retries do not go through
        RQ's scheduler: a failed follow-up sets its game's timer to the backoff
        (:meth:`service.store.followups.Followups.failed`)."""
        return {
            "result_ttl": 0,
            "failure_ttl": 7 * 86_400,
            "meta": {"game_id": game_id, "version": version},
        }

    @property
    def drains(self) -> Drains:
        """The list of games awaiting a follow-up and its drain jobs
        (:class:`service.store.drains.Drains`)."""
        if self._drains is None:
            from .store.drains import Drains

            self._drains = Drains(
                self.queue_redis,
                self.settings.queue_name,
                self.drain_slots,
                self.settings.followup_lease_s,
                0.0 if self.embedded else self.settings.followup_linger_s,
                self.enqueue_drain,
            )
        return self._drains

    def drain_slots(self) -> int:
        """How many drains may run at once: ``CARDROOM_FOLLOWUP_DRAINS``, or the
        worker processes listening on the queue (counted every 10 s; one when
        embedded or when none is counted)."""
        if self.settings.followup_drains:
            return self.settings.followup_drains
        if self.embedded:
            return 1
        at, count = self._workers
        now = time.monotonic()
        if now - at > WORKER_COUNT_TTL_S:
            from rq import Worker

            count = max(1, Worker.count(connection=self.queue_redis, queue=self.queue))
            self._workers = (now, count)
        return count

    def enqueue_followup(self, game_id: str, version: int = 0) -> None:
        """See that a follow-up of ``game_id`` runs: the game goes on the drains'
        list, and a drain job is enqueued if a slot is free. Callers do this
        only when the game's marker was newly set: by their append
        (:attr:`service.store.AppendResult.fresh`) or a poke
        (:meth:`service.store.followups.Followups.request`)."""
        self.drains.dispatch(game_id)
        self.wake.set()

    @property
    def dispatch_on_append(self) -> bool:
        """Whether appends put their games on the drains' list themselves (in the
        append script, :class:`service.store.Dispatch`): when the queue lives on
        the store's Redis and that is not a cluster (the embedded mode, or no
        ``CARDROOM_QUEUE_URL`` of its own)."""
        return self.embedded or (
            self.settings.queue_url is None and not self.settings.redis_cluster
        )

    def append_dispatch(self) -> Dispatch | None:
        """The :class:`service.store.Dispatch` to give an append, if
        :attr:`dispatch_on_append`."""
        return self.drains.inline() if self.dispatch_on_append else None

    @property
    def outbound(self) -> Outbound:
        """How this process calls webhook receivers (:mod:`service.webhooks.outbound`),
        from the ``CARDROOM_WEBHOOK_*`` settings; tests set their own."""
        if self._outbound is None:
            from .webhooks.outbound import Outbound
            from .webhooks.urls import Policy

            s = self.settings
            self._outbound = Outbound(
                policy=Policy.parse(s.webhook_http_loopback, s.webhook_allow, s.webhook_deny),
                timeout_s=s.webhook_timeout_s,
                max_reply=s.webhook_reply_bytes,
                follow_redirects=s.webhook_follow_redirects,
            )
        return self._outbound

    @outbound.setter
    def outbound(self, outbound: Outbound) -> None:
        self._outbound = outbound

    @property
    def webhooks(self) -> Webhooks:
        """The seats' webhooks (:mod:`service.webhooks.subscriptions`)."""
        if self._webhooks is None:
            from .webhooks.subscriptions import Webhooks

            self._webhooks = Webhooks(
                self.store, self.settings, self.outbound, self.enqueue_delivery
            )
        self._webhooks.outbound = self.outbound
        return self._webhooks

    def enqueue_delivery(self, game_id: str, delivery_id: str, token: int) -> None:
        """Have a sender send a queued webhook delivery now: it is in the due set
        (``token``: its score there); wake a sender blocked waiting for work
        (:class:`workers.webhooks.Sender`), or the next one to look finds it."""
        self.store.hooks.wake()

    def enqueue_drain(self, slot: int, token: str) -> None:
        """Enqueue the drain job of ``slot`` (no id of its own, so never refused
        as a duplicate), with the current request id (:mod:`service.requestid`)
        in its meta."""
        options = self.job_options("", 0)
        options["meta"] = {"slot": slot}
        rid = requestid.current()
        if rid is not None:  # the request that caused it: on the job's log lines too
            options["meta"]["request_id"] = rid
        self.queue.enqueue(DRAIN_JOB, slot, token, **options)
        self.wake.set()


def timeouts(settings: Settings) -> dict[str, Any]:
    """Socket and connect timeouts of every Redis client, so that a stalled
    Redis fails a request quickly instead of holding it. A command that waits
    for replicas (``WAIT``) is given the time it asks for."""
    socket_s = settings.redis_socket_timeout_s
    if settings.redis_wait_replicas:
        socket_s = max(socket_s, settings.redis_wait_timeout_ms / 1000 + 1.0)
    # A broken connection (Redis restarted) is retried once at once; a command
    # that timed out is not retried: a stalled Redis fails within one timeout.
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    return {
        "socket_timeout": socket_s,
        "socket_connect_timeout": settings.redis_connect_timeout_s,
        "retry": Retry(NoBackoff(), 1, supported_errors=(redis.ConnectionError,)),
    }


def widen_pool(client: Any, connections: int) -> None:
    """Let ``client`` open ``connections`` connections: each waiting stream holds one
    in ``XREAD BLOCK`` (redis-py's pool allows 100 unless told otherwise)."""
    pool = getattr(client, "connection_pool", None)
    if pool is not None and isinstance(getattr(pool, "max_connections", None), int):
        pool.max_connections = max(pool.max_connections, connections)
