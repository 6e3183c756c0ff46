"""The event store's contract, run on fakeredis and on the real Redis alike."""

from __future__ import annotations

import json
import threading
from dataclasses import replace

import pytest

from schemas.codec import pack_event
from service.engines import table
from service.store import AppendResult, EventStore, Projection, archive, keys
from service.store.errors import BadGameId, CorruptExport, GameExists, GameNotFound, VersionConflict
from service.store.index import BadCursor
from tests.store.helpers import created, timeouts
from tests.testredis import client_of


def new_game(store: EventStore, game_id: str = "g1", extra: int = 0) -> None:
    store.append(game_id, [created(game_id)], 0)
    if extra:
        store.append(game_id, timeouts(extra), 1)


# -- appending and reading ------------------------------------------------------
def test_a_new_game_starts_at_version_one(store: EventStore) -> None:
    assert store.version("g1") == 0 and not store.exists("g1")
    result = store.append("g1", [created()], 0)
    assert result == AppendResult(1, 1, duplicate=False, response=None)
    assert store.version("g1") == 1 and store.exists("g1")
    assert store.game_of("g1") == "azi"


def test_events_come_back_in_order_with_their_versions(store: EventStore) -> None:
    new_game(store)
    events = timeouts(5)
    assert store.append("g1", events[:2], 1) == AppendResult(2, 3)
    assert store.append("g1", events[2:], 3) == AppendResult(4, 6)
    stored = store.read("g1")
    assert [s.version for s in stored] == [1, 2, 3, 4, 5, 6]
    assert [s.event for s in stored] == [created(), *events]
    assert all(s.at_ms > 1_600_000_000_000 for s in stored)
    assert [s.event for s in store.read("g1", after=4)] == events[3:]
    assert [s.version for s in store.read("g1", after=1, limit=2)] == [2, 3]
    assert store.read("g1", after=6) == []
    assert store.read("nobody") == []


def test_a_stale_expected_version_conflicts_and_writes_nothing(store: EventStore) -> None:
    new_game(store, extra=2)
    for stale in (1, 2, 4):
        with pytest.raises(VersionConflict) as info:
            store.append("g1", timeouts(1), stale)
        assert (info.value.game_id, info.value.expected, info.value.actual) == ("g1", stale, 3)
    assert store.version("g1") == 3


def test_creating_an_existing_game_conflicts(store: EventStore) -> None:
    new_game(store)
    with pytest.raises(VersionConflict):
        store.append("g1", [created()], 0)
    assert store.version("g1") == 1


def test_a_stream_starts_with_its_one_game_created(store: EventStore) -> None:
    with pytest.raises(ValueError, match="GameCreated"):
        store.append("g1", timeouts(1), 0)
    new_game(store)
    with pytest.raises(ValueError, match="GameCreated"):
        store.append("g1", [created()], 1)
    with pytest.raises(ValueError, match="at least one"):
        store.append("g1", [], 1)
    assert store.version("g1") == 1


def test_a_repeated_idempotency_key_returns_the_first_result(store: EventStore) -> None:
    new_game(store)
    first = store.append("g1", timeouts(2), 1, idempotency_key="req-1", response='{"version": 3}')
    assert first == AppendResult(2, 3)
    again = store.append("g1", timeouts(2, start=9), 1, idempotency_key="req-1")
    assert again == AppendResult(2, 3, duplicate=True, response='{"version": 3}')
    # the original result even after the stream moved on, and nothing written
    store.append("g1", timeouts(1), 3)
    later = store.append("g1", timeouts(1), 3, idempotency_key="req-1")
    assert later.duplicate and (later.first_version, later.last_version) == (2, 3)
    assert store.version("g1") == 4
    assert store.idempotent_result("g1", "req-1") == again
    assert store.idempotent_result("g1", "req-2") is None
    assert store.idempotent_result("g2", "req-1") is None


def test_an_idempotency_record_without_response_keeps_none(store: EventStore) -> None:
    new_game(store)
    store.append("g1", timeouts(1), 1, idempotency_key="k:with:colons")
    again = store.append("g1", timeouts(1), 1, idempotency_key="k:with:colons")
    assert again == AppendResult(2, 2, duplicate=True, response=None)
    store.append("g1", timeouts(1), 2, idempotency_key="r", response="a:b:c")
    assert store.append("g1", timeouts(1), 2, idempotency_key="r").response == "a:b:c"


def test_a_conflicting_append_does_not_burn_its_idempotency_key(store: EventStore) -> None:
    new_game(store, extra=1)
    with pytest.raises(VersionConflict):
        store.append("g1", timeouts(1), 1, idempotency_key="k")
    assert store.append("g1", timeouts(1), 2, idempotency_key="k") == AppendResult(3, 3)


def test_appends_count_their_events_as_projection_lag(store: EventStore) -> None:
    """On a standalone Redis the append script counts the events it wrote as the
    game's projection lag (no round trip of its own); on a cluster the lag keys
    live in another slot and the result says the caller must count them."""
    first = store.append("g1", [created("g1")], 0)
    store.append("g1", timeouts(2), 1)
    store.append("g1", timeouts(2), 3, idempotency_key="k")
    store.append("g1", timeouts(2, start=5), 3, idempotency_key="k")  # a repeat adds nothing
    with pytest.raises(VersionConflict):
        store.append("g1", timeouts(1), 1)  # nor does a refused append
    # nor an import's entries: the import projects them itself
    store.append_stored("g2", [(*pack_event(created("g2")), 1_700_000_000_000)], 0)
    if not store.counts_lag:  # a cluster
        assert not first.lag_counted and store.lag.read() == (0, 0)
        return
    assert first.lag_counted
    assert store.lag.read() == (5, 5)
    store.lag.projected("g1", 0)
    assert store.lag.read() == (0, 0)
    store.append("g1", timeouts(1), 5)
    assert store.lag.read() == (1, 1)


# -- appends that project themselves -------------------------------------------------
DUE = keys.due(0)


def _projection(store: EventStore, extra: int, limit_ms: int | None = 30_000) -> Projection:
    """What an append of ``timeouts(extra)`` onto game g1 would project: its
    state, seat 1's turn begun at the last event, seat 2's at the one before,
    seat 0 with no turn, seats 1 and 2 to act."""
    events = [s.event for s in store.read("g1")] + timeouts(extra, start=100)
    version = len(events)
    return Projection(
        state=table.fold(events),
        begun={1: version, 2: version - 1, 3: 1},
        idle=(0,),
        to_act=(1, 2),
        limit_ms=limit_ms,
        due_key=DUE,
    )


def _settled(store: EventStore, extra: int) -> None:
    """Game g1 at version ``1 + extra`` with its projection current and no
    follow-up pending (as its last follow-up leaves it)."""
    new_game(store, extra=extra)
    store.save_snapshot("g1", table.fold([s.event for s in store.read("g1")]))
    client_of(store).delete(keys.followup("g1"))


def test_an_append_with_nothing_pending_projects_itself(store: EventStore) -> None:
    _settled(store, extra=2)
    projection = _projection(store, 2)
    if not store.projects_appends:  # a cluster: the timers index is in another slot
        with pytest.raises(ValueError):
            store.append("g1", timeouts(2, start=100), 3, projection=projection)
        assert store.version("g1") == 3
        return
    meta = keys.meta("g1")
    client_of(store).hset(meta, mapping={"turn:0": "2:5", "turn:3": "1:7", "active_ms": "9"})
    client_of(store).zadd(DUE, {"other": 1})
    result = store.append("g1", timeouts(2, start=100), 3, projection=projection)
    assert result == AppendResult(4, 5) and result.projected
    assert not result.fresh and result.drain_slot is None
    assert store.load_snapshot("g1") == projection.state and store.snapshot_version("g1") == 5
    at = result.at_ms
    assert client_of(store).hgetall(meta) == {
        b"turn:1": f"5:{at}".encode(),
        b"turn:2": f"4:{at}".encode(),
        b"turn:3": b"1:7",  # began before: kept
        b"active_ms": b"9",
    }
    assert (
        client_of(store).zscore(DUE, "g1") == at + 30_000
        and client_of(store).zscore(DUE, "other") == 1
    )
    assert not client_of(store).exists(keys.followup("g1"))
    assert store.lag.read() == (0, 0)  # not behind, though the lag counted the earlier ones

    # turns without a limit: the game's timer goes
    projection = _projection(store, 1, limit_ms=None)
    assert store.append("g1", timeouts(1, start=200), 5, projection=projection).projected
    assert client_of(store).zscore(DUE, "g1") is None and store.snapshot_version("g1") == 6


def test_an_append_projects_itself_only_onto_the_current_snapshot(store: EventStore) -> None:
    """A follow-up pending, a snapshot behind or of another state shape: the
    append is appended as without a projection (the workers project it)."""
    if not store.projects_appends:
        return
    new_game(store, extra=2)
    client_of(store).delete(keys.followup("g1"))  # no snapshot at all yet
    result = store.append("g1", timeouts(1, start=50), 3, projection=_projection(store, 1))
    assert not result.projected and result.fresh and store.snapshot_version("g1") == 0
    client_of(store).flushdb()
    _settled(store, extra=2)
    client_of(store).set(keys.followup("g1"), 1)  # a follow-up is pending: it will see this one
    result = store.append("g1", timeouts(1, start=100), 3, projection=_projection(store, 1))
    assert not result.projected and not result.fresh and store.snapshot_version("g1") == 3
    assert client_of(store).get(keys.followup("g1")) == b"2"
    client_of(store).delete(keys.followup("g1"))  # the snapshot is a version behind now
    result = store.append("g1", timeouts(1, start=200), 4, projection=_projection(store, 1))
    assert not result.projected and result.fresh and store.snapshot_version("g1") == 3
    store.save_snapshot("g1", table.fold([s.event for s in store.read("g1")]))
    client_of(store).hset(keys.snapshot("g1"), "h", "an-engine-state-of-old")
    client_of(store).delete(keys.followup("g1"))
    result = store.append("g1", timeouts(1, start=300), 5, projection=_projection(store, 1))
    assert not result.projected and result.fresh
    assert client_of(store).zscore(DUE, "g1") is None and not client_of(store).exists(
        keys.meta("g1")
    )
    assert store.lag.read()[1] > 0


def test_a_refused_or_repeated_append_projects_nothing(store: EventStore) -> None:
    if not store.projects_appends:
        return
    _settled(store, extra=1)
    projection = _projection(store, 1)
    stale = replace(projection, state=table.fold([created("g1"), *timeouts(1, start=100)]))
    with pytest.raises(VersionConflict):  # decided on version 1, the stream is at 2
        store.append("g1", timeouts(1, start=100), 1, projection=stale)
    assert store.snapshot_version("g1") == 2 and not client_of(store).exists(DUE)
    first = store.append(
        "g1", timeouts(1, start=100), 2, idempotency_key="k", projection=projection
    )
    assert first.projected
    client_of(store).delete(keys.meta("g1"), DUE)
    again = store.append(
        "g1", timeouts(1, start=100), 2, idempotency_key="k", projection=projection
    )
    assert again.duplicate and not again.projected
    assert not client_of(store).exists(keys.meta("g1")) and not client_of(store).exists(DUE)
    with pytest.raises(ValueError):  # a projection of another version
        store.append("g1", timeouts(2, start=100), 3, projection=projection)
    assert store.version("g1") == 3 and store.snapshot_version("g1") == 3


def test_idempotency_records_expire(store: EventStore) -> None:
    short = EventStore(client_of(store), idempotency_ttl_s=30)
    new_game(short)
    short.append("g1", timeouts(1), 1, idempotency_key="k")
    ttl = client_of(store).pttl(keys.idem("g1", "k"))
    assert 0 < ttl <= 30_000


def test_wait_returns_new_events_or_nothing_after_the_timeout(store: EventStore) -> None:
    new_game(store)
    assert store.wait("g1", after=1, timeout_ms=50) == []
    assert [s.version for s in store.wait("g1", after=0, timeout_ms=50)] == [1]
    timer = threading.Timer(0.1, lambda: store.append("g1", timeouts(2), 1))
    timer.start()
    try:
        got = store.wait("g1", after=1, timeout_ms=5_000)
    finally:
        timer.join()
    assert [s.version for s in got] == [2, 3] or [s.version for s in got] == [2]
    with pytest.raises(ValueError):
        store.wait("g1", after=1, timeout_ms=0)


def test_game_ids_cannot_escape_their_hash_tag(store: EventStore) -> None:
    for bad in ("", "a}b", "{x}", "a b", "x" * 65, "é"):
        with pytest.raises(BadGameId):
            store.version(bad)


def test_game_of_an_unknown_game(store: EventStore) -> None:
    with pytest.raises(GameNotFound):
        store.game_of("nobody")


# -- snapshots ------------------------------------------------------------------
def test_snapshots_only_move_forward(store: EventStore) -> None:
    new_game(store, extra=3)
    states = [table.fold([s.event for s in store.read("g1", limit=n)]) for n in (1, 2, 3, 4)]
    assert store.load_snapshot("g1") is None and store.snapshot_version("g1") == 0
    assert store.save_snapshot("g1", states[2])
    assert not store.save_snapshot("g1", states[2])
    assert not store.save_snapshot("g1", states[1])
    assert store.load_snapshot("g1") == states[2]
    assert store.save_snapshot("g1", states[3])
    assert store.load_snapshot("g1") == states[3] and store.snapshot_version("g1") == 4
    with pytest.raises(ValueError):
        store.save_snapshot("g2", states[3])


def test_a_snapshot_of_another_state_shape_is_not_used(store: EventStore) -> None:
    new_game(store, extra=3)
    states = [table.fold([s.event for s in store.read("g1", limit=n)]) for n in (2, 4)]
    assert store.save_snapshot("g1", states[1])
    client_of(store).hset(keys.snapshot("g1"), "h", "an-engine-state-of-old")
    assert store.load_snapshot("g1") is None and store.snapshot_version("g1") == 0
    assert store.save_snapshot("g1", states[0])  # older, but the kept one is unusable
    assert store.load_snapshot("g1") == states[0] and store.snapshot_version("g1") == 2


# -- seeds and tokens -------------------------------------------------------------
def test_the_server_seed_is_kept_once(store: EventStore) -> None:
    assert store.get_secret("g1") is None
    store.put_secret("g1", b"\x01" * 32)
    store.put_secret("g1", b"\x02" * 32)
    assert store.get_secret("g1") == b"\x01" * 32


def test_seats_are_found_by_token_hash(store: EventStore) -> None:
    pipe = client_of(store).pipeline()
    store.put_token("g1", 0, "aa" * 32, pipe=pipe)
    store.put_token("g1", 3, "bb" * 32, pipe=pipe)
    assert store.seat_for_token_hash("g1", "aa" * 32) is None  # not executed yet
    pipe.execute()
    assert store.seat_for_token_hash("g1", "aa" * 32) == 0
    assert store.seat_for_token_hash("g1", "bb" * 32) == 3
    assert store.seat_for_token_hash("g1", "cc" * 32) is None
    assert store.seat_for_token_hash("g2", "aa" * 32) is None


# -- the games index ----------------------------------------------------------------
def fill_index(store: EventStore, n: int = 30) -> list[tuple[str, str, str, int]]:
    """Games g00..g(n-1), created 1 ms apart except a run of ties."""
    rows = []
    for i in range(n):
        game = ("azi", "hazari", "murlan")[i % 3]
        status = ("seating", "playing", "ended")[i % 3 - 1 if i % 2 else 0]
        created_at = 1_700_000_000_000 + (i if not 10 <= i < 16 else 10)
        rows.append((f"g{i:02d}", game, status, created_at))
    pipe = client_of(store).pipeline(transaction=False)
    for row in rows:
        store.index_game(*row, pipe=pipe)
    pipe.execute()
    return rows


def newest_first(rows: list[tuple[str, str, str, int]]) -> list[str]:
    return [r[0] for r in sorted(rows, key=lambda r: (r[3], r[0]), reverse=True)]


def all_pages(store: EventStore, limit: int, **filters: str) -> list[list[str]]:
    pages, cursor = [], None
    while True:
        items, cursor = store.list_games(limit=limit, cursor=cursor, **filters)
        pages.append([item.game_id for item in items])
        if cursor is None:
            return pages


@pytest.mark.parametrize("limit", [1, 4, 7, 30, 100])
def test_the_index_pages_newest_first_without_gaps_or_repeats(
    store: EventStore, limit: int
) -> None:
    rows = fill_index(store)
    pages = all_pages(store, limit)
    assert [gid for page in pages for gid in page] == newest_first(rows)
    assert all(len(page) == limit for page in pages[:-1])


def test_the_index_filters_by_game_and_status(store: EventStore) -> None:
    rows = fill_index(store)
    for game in ("azi", "murlan", None):
        for status in ("seating", "playing", "ended", None):
            want = newest_first(
                [r for r in rows if game in (None, r[1]) and status in (None, r[2])]
            )
            filters = {k: v for k, v in (("game", game), ("status", status)) if v is not None}
            got = [gid for page in all_pages(store, 4, **filters) for gid in page]
            assert got == want, (game, status)


def test_a_status_change_moves_the_game_between_lists(store: EventStore) -> None:
    store.index_game("g1", "azi", "seating", 1_700_000_000_000)
    store.index_game("g1", "azi", "ended", 1_700_000_000_999)  # already indexed: kept
    store.set_status("g1", "playing")
    store.set_status("g1", "playing")
    assert store.list_games(status="seating") == ([], None)
    (item,), cursor = store.list_games(game="azi", status="playing")
    assert (item.game_id, item.game, item.status, item.created_at, cursor) == (
        "g1",
        "azi",
        "playing",
        1_700_000_000_000,
        None,
    )
    with pytest.raises(GameNotFound):
        store.set_status("nobody", "ended")


def test_bad_cursors_and_limits_are_refused(store: EventStore) -> None:
    for cursor in ("", "abc", "12:", "x:g1", "12:a}b"):
        with pytest.raises(BadCursor):
            store.list_games(cursor=cursor)
    for limit in (0, 501):
        with pytest.raises(ValueError):
            store.list_games(limit=limit)
    with pytest.raises(ValueError):
        store.list_games(status="Bad Status")


# -- export and import -----------------------------------------------------------------
def test_export_and_import_round_trip(store: EventStore) -> None:
    new_game(store, "g1", extra=4)
    text = archive.export_jsonl(store, "g1")
    lines = [json.loads(line) for line in text.splitlines()]
    assert [line["version"] for line in lines] == [1, 2, 3, 4, 5]
    assert lines[0]["event"]["type"] == "GameCreated"
    with pytest.raises(GameExists):
        archive.import_jsonl(store, text)
    other = EventStore(client_of(store))
    client_of(store).delete(keys.events("g1"))
    assert archive.import_jsonl(other, text) == "g1"
    assert archive.export_jsonl(other, "g1") == text
    assert [s.event for s in other.read("g1")] == [created(), *timeouts(4)]


def test_an_import_refuses_broken_exports(store: EventStore) -> None:
    new_game(store, "g1", extra=3)
    lines = archive.export_jsonl(store, "g1").splitlines()
    client_of(store).delete(keys.events("g1"))
    broken = {
        "gap": [lines[0], lines[2]],
        "not first": lines[1:],
        "not json": [lines[0], "{nope"],
        "bad event": [lines[0], lines[1].replace('"seat":0', '"seat":"zero"')],
        "extra field": [lines[0], lines[1].replace('"seat":0', '"seat":0,"x":1')],
        "unknown type": [lines[0], lines[1].replace("TurnTimedOut", "Nope")],
        "empty": [],
    }
    for name, text in broken.items():
        with pytest.raises(CorruptExport):
            archive.import_jsonl(store, "\n".join(text))
        assert not store.exists("g1"), name


def test_export_of_an_unknown_game(store: EventStore) -> None:
    with pytest.raises(GameNotFound):
        archive.export_jsonl(store, "nobody")
