"""Properties of the store on fakeredis, over many random histories."""

from __future__ import annotations

import fakeredis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from service.engines import table
from service.store import AppendResult, EventStore
from service.store.errors import VersionConflict
from tests.store.helpers import created, timeouts


def fresh_store() -> EventStore:
    return EventStore(fakeredis.FakeRedis(server=fakeredis.FakeServer()))


class StoreMachine(RuleBasedStateMachine):
    """Random appends (fresh or stale, with or without idempotency keys), reads
    and snapshots, checked against a plain list of events."""

    @initialize()
    def start(self) -> None:
        self.store = fresh_store()
        self.events = [created("m")]
        self.store.append("m", self.events, 0)
        self.results: dict[str, AppendResult] = {}
        self.snapshot_version = 0
        self.counter = 0

    def next_events(self, n: int) -> list[table.TurnTimedOut]:
        self.counter += n
        return timeouts(n, start=self.counter)  # type: ignore[return-value]

    @rule(n=st.integers(1, 4), stale_by=st.integers(0, 3), key=st.none() | st.sampled_from("abc"))
    def append(self, n: int, stale_by: int, key: str | None) -> None:
        expected = max(1, len(self.events) - stale_by)
        events = self.next_events(n)
        if key is not None and key in self.results:
            again = self.store.append("m", events, expected, idempotency_key=key)
            first = self.results[key]
            assert again == AppendResult(first.first_version, first.last_version, True, key * 2)
            return
        try:
            result = self.store.append(
                "m", events, expected, idempotency_key=key, response=key and key * 2
            )
        except VersionConflict as exc:
            assert expected != len(self.events) and exc.actual == len(self.events)
            return
        assert expected == len(self.events)
        assert (result.first_version, result.last_version) == (expected + 1, expected + n)
        self.events.extend(events)
        if key is not None:
            self.results[key] = result

    @rule(after=st.integers(0, 40), limit=st.none() | st.integers(1, 5))
    def read(self, after: int, limit: int | None) -> None:
        got = self.store.read("m", after=after, limit=limit)
        want = self.events[after:][:limit] if limit is not None else self.events[after:]
        assert [s.event for s in got] == want
        assert [s.version for s in got] == list(range(after + 1, after + 1 + len(want)))

    @precondition(lambda self: len(self.events) > 1)
    @rule(data=st.data())
    def snapshot(self, data: st.DataObject) -> None:
        version = data.draw(st.integers(1, len(self.events)))
        state = table.fold(self.events[:version])
        saved = self.store.save_snapshot("m", state)
        assert saved == (version > self.snapshot_version)
        self.snapshot_version = max(self.snapshot_version, version)

    @invariant()
    def version_is_the_event_count(self) -> None:
        assert self.store.version("m") == len(self.events)
        assert self.store.snapshot_version("m") == self.snapshot_version


TestStoreMachine = StoreMachine.TestCase
TestStoreMachine.settings = settings(max_examples=20, stateful_step_count=20, deadline=None)


games = st.lists(
    st.tuples(
        st.sampled_from(["azi", "hazari", "murlan"]),
        st.sampled_from(["seating", "playing", "ended"]),
        st.integers(1_700_000_000_000, 1_700_000_000_005),  # many ties
    ),
    max_size=40,
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    games=games,
    limit=st.integers(1, 9),
    game=st.none() | st.sampled_from(["azi", "murlan"]),
    status=st.none() | st.sampled_from(["playing", "ended"]),
)
def test_paging_lists_every_match_once_newest_first(
    games: list[tuple[str, str, int]], limit: int, game: str | None, status: str | None
) -> None:
    store = fresh_store()
    for i, (name, state, at) in enumerate(games):
        store.index_game(f"g{i}", name, state, at)
    listed, cursor = [], None
    while True:
        items, cursor = store.list_games(game=game, status=status, limit=limit, cursor=cursor)
        assert len(items) <= limit
        listed.extend(items)
        if cursor is None:
            break
        assert len(items) == limit
    want = sorted(
        (
            (at, f"g{i}")
            for i, (name, state, at) in enumerate(games)
            if game in (None, name) and status in (None, state)
        ),
        reverse=True,
    )
    assert [(item.created_at, item.game_id) for item in listed] == want
