"""Concurrent writers and readers on one game, against the real Redis.

Writers append with the version they last saw, as the API does; the Lua
append lets exactly one of them land per version and tells every other one.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable

import pytest

from service.engines import table
from service.store import AppendResult, EventStore
from service.store.errors import VersionConflict
from tests.store.helpers import created

pytestmark = pytest.mark.redis

WRITERS = 16
EACH = 25


def run_threads(target: Callable[[int], None], count: int) -> None:
    """Start ``count`` threads together; re-raise the first failure."""
    barrier = threading.Barrier(count)
    errors: list[BaseException] = []

    def body(i: int) -> None:
        try:
            barrier.wait()
            target(i)
        except BaseException as exc:  # handed to the main thread below
            errors.append(exc)

    threads = [threading.Thread(target=body, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    if errors:
        raise errors[0]


def test_racing_writers_land_exactly_one_event_per_version(real_store: EventStore) -> None:
    store = real_store
    store.append("race", [created("race")], 0)
    landed: list[AppendResult] = []
    conflicts = Counter[int]()
    lock = threading.Lock()

    def writer(i: int) -> None:
        mine = 0
        seen = store.version("race")
        while mine < EACH:
            event = table.TurnTimedOut(seat=i, after_s=float(mine))
            try:
                result = store.append("race", [event], seen)
            except VersionConflict as exc:
                assert exc.expected == seen and exc.actual > seen
                with lock:
                    conflicts[i] += 1
                seen = exc.actual
                continue
            with lock:
                landed.append(result)
            mine += 1
            seen = result.last_version

    run_threads(writer, WRITERS)

    total = 1 + WRITERS * EACH
    assert store.version("race") == total
    stored = store.read("race")
    assert [s.version for s in stored] == list(range(1, total + 1))  # no gap
    moves = [(s.event.seat, s.event.after_s) for s in stored[1:]]  # type: ignore[attr-defined]
    assert len(set(moves)) == len(moves) == WRITERS * EACH  # no duplicate
    assert sorted(r.first_version for r in landed) == list(range(2, total + 1))
    assert all(r.first_version == r.last_version and not r.duplicate for r in landed)
    for i in range(WRITERS):  # each writer's own events in its order
        assert [a for s, a in moves if s == i] == [float(k) for k in range(EACH)]
    assert sum(conflicts.values()) > 0, "the writers never met: no race was tested"


def test_racing_retries_with_one_idempotency_key_land_once(real_store: EventStore) -> None:
    store = real_store
    store.append("idem", [created("idem")], 0)
    results: list[AppendResult] = []
    lock = threading.Lock()

    def retry(i: int) -> None:
        event = table.TurnTimedOut(seat=i, after_s=1.0)
        result = store.append("idem", [event], 1, idempotency_key="one-move", response=f"r{i}")
        with lock:
            results.append(result)

    run_threads(retry, WRITERS)
    assert store.version("idem") == 2
    (first,) = [r for r in results if not r.duplicate]
    assert (first.first_version, first.last_version) == (2, 2)
    winner = store.read("idem")[1].event
    duplicates = [r for r in results if r.duplicate]
    assert len(duplicates) == WRITERS - 1
    assert {(r.first_version, r.last_version, r.response) for r in duplicates} == {
        (2, 2, f"r{winner.seat}")  # type: ignore[attr-defined]
    }


def test_readers_during_writes_see_a_prefix_without_gaps(real_store: EventStore) -> None:
    store = real_store
    store.append("live", [created("live")], 0)
    total = 400
    done = threading.Event()

    def writer() -> None:
        version = 1
        while version < total:
            batch = [table.TurnTimedOut(seat=0, after_s=float(version + k)) for k in range(3)]
            batch = batch[: total - version]
            version = store.append("live", batch, version).last_version
        done.set()

    def reader(i: int) -> None:
        if i == 0:
            return writer()
        last = 0
        if i % 2:  # follow the stream live, as an event feed does
            while last < total:
                got = store.wait("live", after=last, timeout_ms=2_000)
                assert got, "the stream stopped growing"
                assert [s.version for s in got] == list(range(last + 1, last + 1 + len(got)))
                last = got[-1].version
            return
        while not done.is_set() or last < total:  # re-read the whole stream over and over
            versions = [s.version for s in store.read("live")]
            assert versions == list(range(1, len(versions) + 1))
            assert len(versions) >= last
            last = len(versions)

    run_threads(reader, 7)
    assert store.version("live") == total
