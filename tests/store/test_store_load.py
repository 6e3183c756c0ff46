"""The load path: snapshot + tail, and a cache that never serves a stale state."""

from __future__ import annotations

import pytest
import redis

from schemas.codec import pack_event
from service.engines import game as table
from service.engines.base import Event
from service.store import EventStore, GameNotFound, StoredEvent, keys
from service.store.load import StateCache, load_game
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
    # only the tail (and the cached state's own last entry, to check it is
    # still the stream's) was read and folded onto the cached state
    assert counting.events_read == 1 + (1 + 3) + 4


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


# -- after a failover lost the newest events ------------------------------------------
def lose_events_after(store: EventStore, game_id: str, keep: int) -> None:
    """What a failover to a replica that lacked the newest events leaves: the
    stream's first ``keep`` entries, as they were (same ids)."""
    raw = store.read_raw(game_id)[:keep]
    store.redis.delete(keys.events(game_id))
    entries = [(r.type, r.schema_version, r.data, r.at_ms) for r in raw]
    store.append_stored(game_id, entries, 0)


def stored(at_ms: int, event: Event) -> tuple[str, int, bytes, int]:
    kind, version, data = pack_event(event)
    return kind, version, data, at_ms


def test_a_cached_state_ahead_of_the_stream_is_dropped(counting: CountingStore) -> None:
    cache = StateCache()
    counting.append("g1", [created()], 0)
    counting.append("g1", timeouts(3), 1)
    assert load_game(counting, "g1", cache=cache).version == 4
    lose_events_after(counting, "g1", 2)
    again = load_game(counting, "g1", cache=cache)
    assert again == table.fold([s.event for s in counting.read("g1")])
    assert again.version == 2 and cache.get("g1") == again


@pytest.mark.parametrize("extra", [0, 2])
def test_a_cached_state_built_on_a_lost_event_is_not_built_upon(
    counting: CountingStore, extra: int
) -> None:
    """Other events took the lost one's version (and ``extra`` more after it)."""
    cache = StateCache()
    counting.append("g1", [created()], 0)
    counting.append("g1", timeouts(3), 1)
    lost = load_game(counting, "g1", cache=cache)
    lose_events_after(counting, "g1", 3)
    last_kept = counting.read("g1")[-1].at_ms
    replacing = [stored(last_kept + 1 + i, e) for i, e in enumerate(timeouts(1 + extra, 50))]
    counting.append_stored("g1", replacing, 3)
    now = load_game(counting, "g1", cache=cache)
    assert now.version == 4 + extra
    assert now == table.fold([s.event for s in counting.read("g1")])
    # rebuilt from the stream, not the lost state brought forward (timeouts
    # leave a state as it was, so the entry's time tells which it is)
    assert cache.entry("g1") == (now, replacing[-1][3])
    assert lost.version == 4


def test_a_state_cached_without_its_entry_time_is_trusted_by_version(
    counting: CountingStore,
) -> None:
    cache = StateCache()
    counting.append("g1", [created()], 0)
    result = counting.append("g1", timeouts(1), 1)
    assert result.at_ms is not None and result.at_ms > 1_600_000_000_000
    state = table.fold([s.event for s in counting.read("g1")])
    cache.put(state)  # as the service does after its own append
    counting.events_read = 0
    assert load_game(counting, "g1", cache=cache) is state
    assert counting.events_read == 0
