"""Whether the event store takes writes, as this process last saw it.

Redis at ``maxmemory`` (``noeviction``), with failing persistence (``MISCONF``)
or answering as a replica (``READONLY``) refuses writes and still serves
reads (:mod:`service.store.refusals`). Each refused request counts in
``cardroom_store_refused_writes_total{reason}``; the state itself is the gauge
``cardroom_store_refusing_writes{reason}`` and one log line per change —
``store refusing writes`` (a warning, with the reason) when it starts or its
reason changes, ``store accepting writes again`` when a write or a readiness
probe goes through — never one per request.
"""

from __future__ import annotations

import logging
import threading
from typing import get_args

from .metrics import STORE_REFUSED_WRITES, STORE_REFUSING_WRITES
from .store.refusals import Reason

log = logging.getLogger("cardroom.store")

REASONS: tuple[Reason, ...] = get_args(Reason)

_lock = threading.Lock()
_current: list[Reason | None] = [None]


def current() -> Reason | None:
    """Why writes are refused, as last seen here; ``None`` while they are taken."""
    return _current[0]


def refused(reason: Reason) -> None:
    """A write was refused for ``reason`` (counted; logged if that is news)."""
    STORE_REFUSED_WRITES.labels(reason).inc()
    with _lock:
        before, _current[0] = _current[0], reason
    if before == reason:
        return
    for name in REASONS:
        STORE_REFUSING_WRITES.labels(name).set(1 if name == reason else 0)
    log.warning("store refusing writes", extra={"reason": reason, "before": before})


def accepted() -> None:
    """A write went through: if writes were refused until now, say they are not."""
    if _current[0] is None:
        return
    with _lock:
        before, _current[0] = _current[0], None
    if before is None:
        return
    for name in REASONS:
        STORE_REFUSING_WRITES.labels(name).set(0)
    log.info("store accepting writes again", extra={"reason": before})
