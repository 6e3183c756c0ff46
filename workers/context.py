"""The worker process's connections and services, built once per process.

A process normally has one context, set by :func:`install`. A thread may bind
its own with :func:`bound` (the embedded worker does): jobs run on that thread
then use it whatever another runtime in the same process installed, so two
embedded services in one process (tests run several) never run each other's
jobs against the wrong store.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from service.config import load_settings
from service.runtime import Runtime
from service.store import EventStore

_lock = threading.Lock()
_current: WorkerContext | None = None
_thread = threading.local()


@dataclass
class WorkerContext:
    runtime: Runtime
    store: EventStore
    service: Any  # service.games.GameService


def build(runtime: Runtime) -> WorkerContext:
    from service.games import GameService

    store = runtime.event_store(
        followup_lease_ms=int(runtime.settings.followup_lease_s * 1000),
        seeds=runtime.seed_cipher(),
    )
    return WorkerContext(runtime, store, GameService(runtime, store))


def install(runtime: Runtime) -> WorkerContext:
    """Use ``runtime`` for every job run in this process (but threads that bound their own)."""
    return use(build(runtime))


def use(ctx: WorkerContext) -> WorkerContext:
    """Make ``ctx`` the process's context (but for threads that bound their own)."""
    global _current
    with _lock:
        _current = ctx
        return ctx


@contextmanager
def bound(ctx: WorkerContext) -> Iterator[WorkerContext]:
    """Make ``ctx`` this thread's context for the block (then restore the one before)."""
    before = getattr(_thread, "ctx", None)
    _thread.ctx = ctx
    try:
        yield ctx
    finally:
        _thread.ctx = before


def context() -> WorkerContext:
    """This thread's bound context, else the installed one, else one built from
    the environment (``rq worker``)."""
    mine: WorkerContext | None = getattr(_thread, "ctx", None)
    if mine is not None:
        return mine
    global _current
    with _lock:
        if _current is None:
            _current = build(Runtime.from_settings(load_settings()))
        return _current
