"""The load path: snapshot + tail in one round trip, and a cache that never
serves a stale state."""

from __future__ import annotations

from typing import Any

import pytest
import redis

from schemas.codec import pack_event
from service.engines import table
from service.engines.base import Event
from service.store import EventStore, GameNotFound, LoadParts, keys
from service.store.load import StateCache, load_game, load_game_and_tokens
from tests.store.helpers import created, timeouts
from tests.testredis import client_of


class CountingStore(EventStore):
    """Counts the events each load hands back to be folded."""

    events_read = 0

    def load_parts(
        self,
        game_id: str,
        cached: tuple[table.Table, int | None] | None = None,
        *,
        tokens: bool = False,
    ) -> LoadParts:
        parts = super().load_parts(game_id, cached, tokens=tokens)
        self.events_read += len(parts.events)
        return parts


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

    other_writer = EventStore(client_of(counting))
    other_writer.append("g1", timeouts(3), 1)
    second = load_game(counting, "g1", cache=cache)
    assert second.version == 4
    assert second == table.fold([s.event for s in counting.read("g1")])
    # only the tail was read and folded onto the cached state (the script
    # checked that the cached state's own last entry is still the stream's)
    assert counting.events_read == 1 + 3


def test_loads_start_from_the_snapshot(counting: CountingStore) -> None:
    counting.append("g1", [created()], 0)
    counting.append("g1", timeouts(9), 1)
    full = table.fold([s.event for s in counting.read("g1")])
    counting.save_snapshot("g1", table.fold([s.event for s in counting.read("g1", limit=7)]))
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
    client_of(store).delete(keys.events(game_id))
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
    assert load_game(counting, "g1", cache=cache) is state
    assert counting.events_read == 0


# -- one call, one round trip ----------------------------------------------------------
class RoundTrips:
    """The commands a Redis client sends: each is one round trip, as the load
    path uses no pipeline."""

    def __init__(self, client: redis.Redis, monkeypatch: pytest.MonkeyPatch) -> None:
        self.sent: list[object] = []
        real = client.execute_command

        def counting(*args: Any, **options: Any) -> Any:
            self.sent.append(args[0])
            return real(*args, **options)

        monkeypatch.setattr(client, "execute_command", counting)

    def take(self) -> list[object]:
        sent, self.sent = self.sent, []
        return sent


def new_game(store: EventStore, extra: int) -> list[int]:
    """A game ``g1`` of ``1 + extra`` events; the time part of each entry id."""
    store.append("g1", [created()], 0)
    if extra:
        store.append("g1", timeouts(extra), 1)
    return [s.at_ms for s in store.read("g1")]


def fold_of(store: EventStore, upto: int | None = None) -> table.Table:
    return table.fold([s.event for s in store.read("g1", limit=upto)])


def test_load_parts_hands_back_the_tail_after_a_cached_state(store: EventStore) -> None:
    at = new_game(store, 9)
    cached = fold_of(store, 4)
    parts = store.load_parts("g1", (cached, at[3]))
    assert (parts.version, parts.at_ms) == (10, at[9])
    assert parts.cached and parts.base is cached and parts.token_hashes is None
    assert [(e.version, e.at_ms) for e in parts.events] == list(enumerate(at[4:], start=5))
    assert [e.event for e in parts.events] == [s.event for s in store.read("g1", after=4)]
    # a state cached without its entry's time is trusted by its version
    unknown_time = store.load_parts("g1", (cached, None))
    assert unknown_time.cached and [e.version for e in unknown_time.events] == list(range(5, 11))
    # a current one needs nothing more
    current = store.load_parts("g1", (fold_of(store), at[9]))
    assert current.cached and current.events == [] and current.version == 10


def test_load_parts_detects_a_replaced_or_lost_entry(store: EventStore) -> None:
    new_game(store, 3)
    cached = fold_of(store)
    at = store.read("g1")[-1].at_ms
    lose_events_after(store, "g1", 3)
    kept_at = store.read("g1")[-1].at_ms
    store.append_stored("g1", [stored(kept_at + 1, timeouts(1, 50)[0])], 3)
    replaced = store.load_parts("g1", (cached, at))
    assert not replaced.cached and replaced.base is None
    assert [e.version for e in replaced.events] == [1, 2, 3, 4]
    assert replaced.events[-1].at_ms == kept_at + 1
    # a cached state past the stream's end
    lose_events_after(store, "g1", 2)
    ahead = store.load_parts("g1", (cached, at))
    assert not ahead.cached and [e.version for e in ahead.events] == [1, 2]


def test_load_parts_uses_a_usable_snapshot_newer_than_the_cache(store: EventStore) -> None:
    at = new_game(store, 9)
    snapshot = fold_of(store, 7)
    store.save_snapshot("g1", snapshot)
    alone = store.load_parts("g1")
    assert alone.base == snapshot and not alone.cached
    assert [e.version for e in alone.events] == [8, 9, 10]
    older = store.load_parts("g1", (fold_of(store, 3), at[2]))
    assert older.cached and older.base == snapshot
    assert [e.version for e in older.events] == [8, 9, 10]
    newer_cache = fold_of(store, 8)
    newer = store.load_parts("g1", (newer_cache, at[7]))
    assert newer.cached and newer.base is newer_cache
    assert [e.version for e in newer.events] == [9, 10]
    # a snapshot written with another state schema is not used: the whole stream is
    client_of(store).hset(keys.snapshot("g1"), "h", "another-schema")
    stale = store.load_parts("g1")
    assert stale.base is None and [e.version for e in stale.events] == list(range(1, 11))
    assert load_game(store, "g1", cache=None) == fold_of(store)


def test_a_snapshot_past_the_streams_end_is_not_used(store: EventStore) -> None:
    new_game(store, 5)
    store.save_snapshot("g1", fold_of(store))
    lose_events_after(store, "g1", 4)
    parts = store.load_parts("g1")
    assert parts.base is None and [e.version for e in parts.events] == [1, 2, 3, 4]
    assert load_game(store, "g1", cache=None) == fold_of(store)


def test_a_load_is_one_round_trip(
    redis_client: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = EventStore(redis_client)
    new_game(store, 9)
    cache = StateCache()
    load_game(store, "g1", cache=None)  # Redis learns the script
    trips = RoundTrips(redis_client, monkeypatch)
    full = load_game(store, "g1", cache=cache)
    assert trips.take() == ["EVALSHA"] and full == fold_of(store)
    trips.take()
    assert load_game(store, "g1", cache=cache) is full
    assert trips.take() == ["EVALSHA"]
    EventStore(redis_client).append("g1", timeouts(2, 20), 10)
    trips.take()
    tail = load_game(store, "g1", cache=cache)
    assert trips.take() == ["EVALSHA"] and tail.version == 12
    store.save_snapshot("g1", tail)
    trips.take()
    assert load_game(store, "g1", cache=None) == tail
    assert trips.take() == ["EVALSHA"]
    store.put_token("g1", 1, "hash-of-a-token")
    trips.take()
    state, hashes = load_game_and_tokens(store, "g1", cache=cache)
    assert state is tail and hashes == {b"hash-of-a-token": b"1"}
    assert trips.take() == ["EVALSHA"]
    with pytest.raises(GameNotFound):
        load_game(store, "nobody", cache=cache)
    assert trips.take() == ["EVALSHA"]
