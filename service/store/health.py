"""What the probes and the memory watch ask Redis itself: :class:`ServerHealth`
(``store.health``) owns the ready probe's key (:func:`keys.ready_probe`)."""

from __future__ import annotations

from typing import Any

from . import keys
from .clients import Client


class ServerHealth:
    """Liveness, writability and memory of the store's Redis."""

    def __init__(self, redis: Client) -> None:
        self._redis = redis

    def ping(self) -> None:
        """Raise unless Redis answers."""
        self._redis.ping()

    def probe_write(self, at_ms: int, ttl_ms: int) -> None:
        """Write the ready probe (raises as any refused write does)."""
        self._redis.set(keys.ready_probe(), at_ms, px=ttl_ms)

    def memory(self) -> Any:
        """``INFO memory``'s reply, as the client returns it (raises when refused)."""
        return self._redis.info("memory")
