"""The process's connections: the event store's Redis, the RQ broker, the queue.

One :class:`Runtime` is built per process from :class:`~service.config.Settings`.
With no ``CARDROOM_REDIS_URL`` everything lives on one in-process fake Redis
(the embedded default) and jobs run on an in-process worker thread.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import redis
from rq import Queue, Retry

from .clients import require_replicas
from .config import Settings

FOLLOWUP_JOB = "workers.jobs.process_game"


def connect(url: str, *, cluster: bool = False, password: str | None = None) -> Any:
    """A redis-py client for ``url`` (bytes replies).

    A cluster client when asked, or when the URL says ``redis+cluster://`` (or
    ``rediss+cluster://``); such a URL may list several seed nodes,
    ``redis+cluster://[user:pass@]host1:port1,host2:port2``, so that one seed
    being down does not stop a process from starting. The client learns the
    rest of the cluster from whichever seed answers. ``password`` (from
    CARDROOM_REDIS_PASSWORD_FILE) stands in for the URL's.
    """
    extra: dict[str, Any] = {} if password is None else {"password": password}
    scheme, sep, rest = url.partition("://")
    if not sep:
        raise ValueError(f"not a Redis URL: {url!r}")
    if scheme.endswith("+cluster"):
        scheme, cluster = scheme.removesuffix("+cluster"), True
    if not cluster:
        return redis.Redis.from_url(url, **extra)
    from redis.cluster import ClusterNode, RedisCluster

    netloc, slash, tail = rest.partition("/")
    auth, at, hosts = netloc.rpartition("@")
    first, *others = hosts.split(",")
    make_node: Any = ClusterNode  # its constructor carries no annotations
    seeds = [make_node(*_host_port(other)) for other in others]
    return RedisCluster.from_url(
        f"{scheme}://{auth}{at}{first}{slash}{tail}", startup_nodes=seeds or None, **extra
    )


def _host_port(seed: str) -> tuple[str, int]:
    host, _, port = seed.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(f"bad cluster seed {seed!r}: use host:port")
    return host.strip("[]"), int(port)


@dataclass
class Runtime:
    settings: Settings
    redis: Any
    queue_redis: Any
    fake_server: Any = None
    _queue: Queue | None = field(default=None, init=False)

    @classmethod
    def from_settings(cls, settings: Settings) -> Runtime:
        if settings.redis_url is None:
            import fakeredis

            server = fakeredis.FakeServer()
            store_client = fakeredis.FakeRedis(server=server)
            return cls(settings, store_client, fakeredis.FakeRedis(server=server), server)
        password = settings.redis_password()
        store_client = connect(
            settings.redis_url, cluster=settings.redis_cluster, password=password
        )
        if settings.redis_wait_replicas:
            require_replicas(
                store_client, settings.redis_wait_replicas, settings.redis_wait_timeout_ms
            )
        if settings.queue_url is not None:
            queue_client = connect(settings.queue_url, password=password)
        elif settings.redis_cluster:
            raise ValueError(
                "CARDROOM_QUEUE_URL is required with a Redis Cluster (RQ needs a standalone Redis)"
            )
        else:
            queue_client = connect(settings.redis_url, password=password)
        return cls(settings, store_client, queue_client)

    @property
    def embedded(self) -> bool:
        return self.fake_server is not None

    @property
    def queue(self) -> Queue:
        if self._queue is None:
            self._queue = Queue(self.settings.queue_name, connection=self.queue_redis)
        return self._queue

    def job_options(self, game_id: str, version: int) -> dict[str, Any]:
        """What every cardroom job carries: retries with backoff, and the game and
        version it is about (in its meta, for the failure log)."""
        intervals = self.settings.retry_intervals
        retry = Retry(max=len(intervals), interval=intervals) if intervals else None
        return {
            "result_ttl": 60,
            "failure_ttl": 7 * 86_400,
            "retry": retry,
            "meta": {"game_id": game_id, "version": version},
        }

    def enqueue_followup(self, game_id: str, version: int, delay_s: float = 0.0) -> None:
        """Ask the workers to take a game's next steps after ``version``.

        Deduplicated per (game, version): a busy game does not flood the queue.
        """
        from datetime import timedelta

        from rq.exceptions import DuplicateJobError

        job_id = f"cardroom-followup-{game_id}-{version}"
        options = self.job_options(game_id, version)
        try:
            if delay_s > 0:
                self.queue.enqueue_in(
                    timedelta(seconds=delay_s),
                    FOLLOWUP_JOB,
                    game_id,
                    job_id=job_id,
                    unique=True,
                    **options,
                )
            else:
                self.queue.enqueue(FOLLOWUP_JOB, game_id, job_id=job_id, unique=True, **options)
        except DuplicateJobError:
            pass  # the same follow-up is already queued or just ran
