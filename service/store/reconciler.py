"""The reconciler's cursor through the games index and the figures of its
sweeps: :class:`ReconcilerState` (``store.reconciler``) owns the hash
``keys.reconciler()``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from . import keys
from .clients import Client


class ReconcilerState:
    """Read and write the reconciler's state hash."""

    def __init__(self, redis: Client) -> None:
        self._redis = redis

    def read(self) -> dict[str, str]:
        """Every field of the state (empty before the first pass)."""
        raw = cast(dict[bytes, bytes], self._redis.hgetall(keys.reconciler()))
        return {k.decode(): v.decode() for k, v in raw.items()}

    def write(self, mapping: Mapping[str, Any]) -> None:
        """Set these fields of the state."""
        self._redis.hset(keys.reconciler(), mapping=cast(Any, dict(mapping)))

    def last_sweep(self) -> tuple[int, int] | None:
        """When the last complete sweep ended (Redis's ms) and how many games it
        poked; ``None`` before the first."""
        raw = cast(
            list[bytes | None], self._redis.hmget(keys.reconciler(), ["swept_ms", "last_found"])
        )
        if raw[0] is None:
            return None
        return int(raw[0]), int(raw[1] or 0)
