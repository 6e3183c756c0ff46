"""The figures of the last complete audit (``cardroom audit``):
:class:`AuditRecord` (``store.audits``) owns the hash ``keys.audit()``, which
the API's metrics read at scrape time."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from . import keys
from .clients import Client


@dataclass(frozen=True, slots=True)
class LastAudit:
    finished_ms: int
    """When the audit ended (Redis's clock, ms since the epoch)."""
    games: int
    failures: int
    seconds: float


class AuditRecord:
    """Read and write the last audit's figures."""

    def __init__(self, redis: Client) -> None:
        self._redis = redis

    def record(self, games: int, failures: int, seconds: float, finished_ms: int) -> None:
        mapping: dict[str, Any] = {
            "finished_ms": int(finished_ms),
            "games": int(games),
            "failures": int(failures),
            "seconds": f"{seconds:.3f}",
        }
        self._redis.hset(keys.audit(), mapping=cast(Any, mapping))

    def last(self) -> LastAudit | None:
        """The last audit's figures; ``None`` before the first."""
        raw = cast(
            list[bytes | None],
            self._redis.hmget(keys.audit(), ["finished_ms", "games", "failures", "seconds"]),
        )
        if raw[0] is None:
            return None
        return LastAudit(int(raw[0]), int(raw[1] or 0), int(raw[2] or 0), float(raw[3] or 0))
