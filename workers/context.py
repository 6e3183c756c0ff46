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
from dataclasses import dataclass, field

from service.config import load_settings
from service.games import GameService
from service.runtime import Runtime
from service.store import EventStore, StateCache

_lock = threading.Lock()
_current: WorkerContext | None = None
_thread = threading.local()


@dataclass
class WorkerContext:
    runtime: Runtime
    store: EventStore
    service: GameService
    projected: StateCache = field(default_factory=StateCache)
    """The state each game was last projected to by this process's jobs
    (:func:`workers.jobs.project_round` folds only the events after it)."""


def build(runtime: Runtime) -> WorkerContext:
    """The context of ``runtime``'s one store and service."""
    return WorkerContext(runtime, runtime.store, runtime.service())


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
