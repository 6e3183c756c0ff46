"""The worker process's connections and services, built once per process."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from service.config import load_settings
from service.runtime import Runtime
from service.store import EventStore

_lock = threading.Lock()
_current: WorkerContext | None = None


@dataclass
class WorkerContext:
    runtime: Runtime
    store: EventStore
    service: Any  # service.games.GameService


def build(runtime: Runtime) -> WorkerContext:
    from service.games import GameService

    store = EventStore(
        runtime.redis, followup_lease_ms=int(runtime.settings.followup_lease_s * 1000)
    )
    return WorkerContext(runtime, store, GameService(runtime, store))


def install(runtime: Runtime) -> WorkerContext:
    """Use ``runtime`` for every job run in this process."""
    global _current
    with _lock:
        _current = build(runtime)
        return _current


def context() -> WorkerContext:
    """The installed context, or one built from the environment (``rq worker``)."""
    global _current
    with _lock:
        if _current is None:
            _current = build(Runtime.from_settings(load_settings()))
        return _current
