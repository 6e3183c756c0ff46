"""The load path: snapshot + tail, and a cache that never serves a stale state."""

from __future__ import annotations

import pytest
import redis

from service.engines import game as table
from service.errors import GameNotFound
from service.load import StateCache, load_game
from service.store import EventStore, StoredEvent
from tests.store.helpers import created, timeouts


class CountingStore(EventStore):
    """Counts the events each read hands back."""

    events_read = 0

    def read(self, game_id: str, after: int = 0, limit: int | None = None) -> list[StoredEvent]:
        got = super().read(game_id, after, limit)
        self.events_read += len(got)
        return got


@pytest.fixture
def counting(redis_client: redis.Redis) -> CountingStore:
    return CountingStore(redis_client)


def test_an_unknown_game_is_not_found(counting: CountingStore) -> None:
    with pytest.raises(GameNotFound):
        load_game(counting, "nobody", cache=StateCache())


def test_the_cache_never_serves_a_stale_version(counting: CountingStore) -> None:
    cache = StateCache()
    counting.append("g1", [created()], 0)
    first = load_game(counting, "g1", cache=cache)
    assert first.version == 1
    assert load_game(counting, "g1", cache=cache) is first  # same version: no read at all
    assert counting.events_read == 1

    other_writer = EventStore(counting.redis)
    other_writer.append("g1", timeouts(3), 1)
    second = load_game(counting, "g1", cache=cache)
    assert second.version == 4
    assert second == table.fold([s.event for s in counting.read("g1")])
    assert counting.events_read == 1 + 3 + 4  # only the tail was folded onto the cached state


def test_loads_start_from_the_snapshot(counting: CountingStore) -> None:
    counting.append("g1", [created()], 0)
    counting.append("g1", timeouts(9), 1)
    full = table.fold([s.event for s in counting.read("g1")])
    counting.events_read = 0
    counting.save_snapshot("g1", table.fold([s.event for s in counting.read("g1", limit=7)]))
    counting.events_read = 0
    assert load_game(counting, "g1", cache=None) == full
    assert counting.events_read == 3


def test_a_long_tail_saves_a_snapshot_when_asked(counting: CountingStore) -> None:
    counting.append("g1", [created()], 0)
    counting.append("g1", timeouts(9), 1)
    load_game(counting, "g1", cache=None, snapshot_every=20)
    assert counting.snapshot_version("g1") == 0
    state = load_game(counting, "g1", cache=None, snapshot_every=5)
    assert counting.snapshot_version("g1") == 10
    assert counting.load_snapshot("g1") == state


def test_the_cache_keeps_the_newest_state_and_drops_the_least_used() -> None:
    cache = StateCache(maxsize=2)
    states = [table.fold([created(f"g{i}"), *timeouts(i)]) for i in range(3)]
    newer = table.apply(states[1], timeouts(1)[0])
    cache.put(newer)
    cache.put(states[1])  # older: ignored
    assert cache.get("g1") is newer
    cache.put(states[0])
    cache.put(states[2])  # g1 was used least recently
    assert cache.get("g1") is None and len(cache) == 2
    cache.clear()
    assert cache.get("g0") is None
