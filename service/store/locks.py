"""Locks with a TTL that decide which process runs a periodic pass:
:class:`PassLocks` (``store.locks``) owns the retention pass's lock
(:func:`keys.retention_lock`) and the reconciler's (``keys.reconciler("lock")``)."""

from __future__ import annotations

from . import keys
from .clients import Client


class PassLocks:
    """Take a pass's lock for one interval (never released: the interval holds
    across processes)."""

    def __init__(self, redis: Client) -> None:
        self._redis = redis

    def retention(self, ttl_s: int) -> bool:
        """The retention pass's lock for ``ttl_s`` s; whether this call took it."""
        return bool(self._redis.set(keys.retention_lock(), b"1", nx=True, ex=ttl_s))

    def reconciler(self, ttl_ms: int) -> bool:
        """The reconciler's lock for ``ttl_ms`` ms; whether this call took it."""
        return bool(self._redis.set(keys.reconciler("lock"), "1", nx=True, px=ttl_ms))
