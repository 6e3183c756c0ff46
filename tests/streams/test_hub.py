"""The stream hub under threads (the embedded server's, the API's): few readers
for many games, each batch shared and rendered once per viewer, a slow
subscriber dropped alone, new games read at once, a lost Redis let go."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Generator, Iterator
from typing import Any

import pytest
import redis

from service.api.live import HELD_TEXT, NdjsonLines, Opened, sent
from service.config import load_settings
from service.engines import table
from service.games import GameService
from service.hub import Batch, Hub, Subscriber
from service.hub.feed import GameFeed
from service.runtime import Runtime
from service.store import EventStore, StoredEvent, keys
from service.store.tails import TailLost
from tests.testredis import TEST_REDIS

pytestmark = [pytest.mark.redis, pytest.mark.timeout(120)]

HUB_REDIS_URL = f"{TEST_REDIS}/7"


@pytest.fixture
def socket_timeout_s() -> float:
    return 1.0


@pytest.fixture
def svc(socket_timeout_s: float) -> Iterator[GameService]:
    client = redis.Redis.from_url(HUB_REDIS_URL)
    try:
        client.ping()
    except redis.ConnectionError:
        pytest.skip(f"no Redis at {TEST_REDIS} (run tests/ensure-redis.sh)")
    client.flushdb()
    settings = load_settings(redis_url=HUB_REDIS_URL, redis_socket_timeout_s=socket_timeout_s)
    runtime = Runtime.from_settings(settings)
    yield runtime.service()
    client.flushdb()
    client.close()


class Counting(NdjsonLines):
    """The stream's renderer, counting its renders by viewer."""

    def __init__(self, store: EventStore) -> None:
        super().__init__(store)
        self.events: Counter[int | None] = Counter()

    def event_line(self, state: table.Table, stored: StoredEvent, viewer: int | None) -> str:
        self.events[viewer] += 1
        return super().event_line(state, stored, viewer)


def taken(sub: Subscriber, until: Callable[[list[Batch]], bool], got: list[Batch]) -> None:
    deadline = time.monotonic() + 10
    while not until(got):
        assert time.monotonic() < deadline, f"only {len(got)} batches came"
        sub.signal.wait(0.5)
        sub.signal.clear()
        got.extend(sub.take())


def test_hundreds_of_games_take_two_readers_and_render_once_per_viewer(svc: GameService) -> None:
    renderer = Counting(svc.store)
    hub = Hub(svc.store, renderer, keys_per_reader=256)
    games = [svc.create_game("azi", seats=6) for _ in range(300)]
    subs: dict[str, list[Subscriber]] = {}
    for state in games:
        # three streams of the game: two spectators and a seat's
        subs[state.game_id] = [
            hub.subscribe(state, viewer, threading.Event())[0] for viewer in (None, None, 0)
        ]
    assert hub.connections() == 2  # 300 games over readers of 256 keys
    for state in games:
        svc.take_seat(state.game_id, "someone")
    for state in games:
        got = {id(s): list[Batch]() for s in subs[state.game_id]}
        for sub in subs[state.game_id]:
            taken(sub, lambda batches: bool(batches) and batches[-1].version >= 2, got[id(sub)])
        spectators = [got[id(s)] for s in subs[state.game_id][:2]]
        assert spectators[0][-1] is spectators[1][-1]  # one batch for every stream of the game
        lines = [b.lines(v, 1) for b, v in ((spectators[0][-1], None), (spectators[1][-1], None))]
        assert lines[0] == lines[1] and '"version":2' in lines[0]
        seat_batch = got[id(subs[state.game_id][2])][-1]
        assert seat_batch is spectators[0][-1] and seat_batch.lines(0, 1)
    # one render per game for the spectators, one for seat 0: not one per stream
    assert renderer.events[None] == 300 and renderer.events[0] == 300
    for sub_list in subs.values():
        for sub in sub_list:
            hub.unsubscribe(sub)
    assert not hub.feeds and not hub.watches


def test_a_slow_subscriber_is_dropped_and_the_others_get_everything(svc: GameService) -> None:
    hub = Hub(svc.store, NdjsonLines(svc.store), max_pending=2)
    state = svc.create_game("azi", seats=6)
    slow, _ = hub.subscribe(state, None, threading.Event())
    fast, _ = hub.subscribe(state, None, threading.Event())
    got: list[Batch] = []
    for n in range(5):
        svc.take_seat(state.game_id, f"p{n}")
        taken(fast, lambda batches, v=n + 2: bool(batches) and batches[-1].version == v, got)
    versions = [v for b in got for v in range(b.first, b.version + 1)]
    assert versions == [2, 3, 4, 5, 6]  # no gap, no duplicate
    assert slow.closed == "slow" and slow.pending is not None and len(slow.pending) == 2
    assert slow not in hub.feeds[state.game_id].subscribers


@pytest.mark.parametrize("socket_timeout_s", [60.0])
def test_a_game_watched_while_the_reader_blocks_is_read_at_once(svc: GameService) -> None:
    hub = Hub(svc.store, NdjsonLines(svc.store))
    hub.block_ms = 50_000  # without its wake-up the reader would not read for 50 s
    first = svc.create_game("murlan")
    hub.subscribe(first, None, threading.Event())
    deadline = time.monotonic() + 10
    while not _blocked(svc):
        assert time.monotonic() < deadline, "the reader never blocked"
        time.sleep(0.01)
    later = svc.create_game("murlan")
    sub, _ = hub.subscribe(later, 1, threading.Event())
    svc.take_seat(later.game_id, "someone")
    got: list[Batch] = []
    taken(sub, lambda batches: bool(batches), got)
    assert got[0].version == 2 and hub.connections() == 1


def _blocked(svc: GameService) -> bool:
    with redis.Redis.from_url(HUB_REDIS_URL) as admin:
        return any(c.get("cmd") == "xread" for c in admin.client_list(_type="normal"))


class Unreachable:
    """A reader whose reads fail as they do when Redis went away."""

    def read(self, streams: dict[str, str], block_ms: int) -> None:
        raise TailLost("Connection refused")


def test_a_killed_connection_is_read_again_and_a_lost_redis_ends_the_streams(
    svc: GameService,
) -> None:
    hub = Hub(svc.store, NdjsonLines(svc.store))
    state = svc.create_game("murlan")
    sub, _ = hub.subscribe(state, None, threading.Event())
    deadline = time.monotonic() + 10
    while not _blocked(svc):
        assert time.monotonic() < deadline, "the reader never blocked"
        time.sleep(0.01)
    with redis.Redis.from_url(HUB_REDIS_URL) as admin:
        for client in admin.client_list(_type="normal"):
            if client.get("cmd") == "xread":
                admin.client_kill_filter(_id=client["id"])
    svc.take_seat(state.game_id, "someone")  # the client reconnects: the stream goes on
    got: list[Batch] = []
    taken(sub, lambda batches: bool(batches), got)
    assert got[0].version == 2 and sub.closed is None
    # a Redis that stays away: the streams end (their clients resume with ?after=)
    reader = hub.readers[0]
    tail, reader.tail = reader.tail, Unreachable()  # type: ignore[assignment]
    svc.take_seat(state.game_id, "someone else")  # ends the blocked read
    deadline = time.monotonic() + 10
    while sub.closed is None:
        assert time.monotonic() < deadline, "the stream was not let go"
        sub.signal.wait(0.5)
    assert sub.closed == "redis" and not hub.feeds
    reader.tail = tail  # Redis is back
    again, _ = hub.subscribe(svc.load(state.game_id), None, threading.Event())
    svc.take_seat(state.game_id, "a third")
    got = []
    taken(again, lambda batches: bool(batches), got)
    assert got[-1].version == 4


class Watched:
    """A reader's reads, seen from outside: when one is sent after a cursor of
    ``version``, and when it comes back (before its reply is handed out)."""

    def __init__(self, tail: Any, version: int) -> None:
        self.tail = tail
        self.prefix = f"{version}-"
        self.out = threading.Event()
        self.back = threading.Event()

    def read(self, streams: dict[str, str], block_ms: int) -> Any:
        mine = not self.out.is_set() and any(c.startswith(self.prefix) for c in streams.values())
        if mine:
            self.out.set()
        reply = self.tail.read(streams, block_ms)
        if mine:
            self.back.set()
        return reply


@pytest.mark.parametrize("socket_timeout_s", [60.0])
def test_a_game_watched_again_while_a_read_is_out_gets_every_event(svc: GameService) -> None:
    """A stream closes and another of the game opens, from an older state, while
    the reader's read (sent after the first stream's newer cursor) is out: its
    reply is no answer for the new stream, which must still get every event."""
    hub = Hub(svc.store, NdjsonLines(svc.store))
    hub.block_ms = 50_000  # the read out comes back with the event, never on its own
    game = svc.create_game("azi", seats=6).game_id
    svc.take_seat(game, "p0")
    stale = svc.load(game)  # what the second stream loaded, at version 2
    first, _ = hub.subscribe(stale, None, threading.Event())
    reads = Watched(hub.readers[0].tail, 3)
    hub.readers[0].tail = reads  # type: ignore[assignment]
    svc.take_seat(game, "p1")
    got: list[Batch] = []
    taken(first, lambda batches: bool(batches) and batches[-1].version == 3, got)
    assert reads.out.wait(10), "no read was sent after version 3"
    with hub.lock:  # the reply waits here, before it is handed out
        svc.take_seat(game, "p2")  # version 4 ends the read
        assert reads.back.wait(10), "the read never came back"
        hub.unsubscribe(first)
        second, start = hub.subscribe(stale, None, threading.Event())
    assert start.version == 2
    got = []
    taken(second, lambda batches: bool(batches) and batches[-1].version >= 4, got)
    versions = [v for b in got for v in range(b.first, b.version + 1)]
    assert versions == [3, 4]  # version 3 too: no gap, no duplicate
    assert hub.feeds[game].state.version == 4


def test_a_feed_folds_only_the_event_after_its_state(svc: GameService) -> None:
    """Entries that do not start right after the feed's version are no batch: the
    feed keeps its state, and its cursor names where the next read starts."""
    game = svc.create_game("azi", seats=6).game_id
    for n in range(3):
        svc.take_seat(game, f"p{n}")
    stored = svc.store.read(game)
    feed = GameFeed(
        keys.events(game),
        table.fold([s.event for s in stored[:2]]),
        Counting(svc.store),
        lambda f, r: None,
    )
    sub = Subscriber(None, threading.Event())
    feed.join(sub, feed.state)
    assert feed.deliver(stored[3:], 8, lambda v, at: None) == []
    assert feed.state.version == 2 and not sub.pending and feed.cursor.startswith("2-")
    feed.deliver(stored[2:], 8, lambda v, at: None)
    assert feed.state.version == 4 and [b.version for b in sub.take()] == [4]


def test_an_idle_stream_holds_no_queue_and_lets_go_of_its_long_opening(svc: GameService) -> None:
    """What an idle stream keeps (docs/operations.md, "Memory per stream"): no
    batch or message queue until something comes, and not the opening's text
    once it is written (an empty text follows a long one)."""
    hub = Hub(svc.store, NdjsonLines(svc.store))
    state = svc.create_game("azi", seats=6)
    signal = threading.Event()
    sub, _ = hub.subscribe(state, None, signal)
    talk = hub.listen(state.game_id, "0-0", signal)
    assert sub.pending is None and talk.heard is None and sub.take() == [] and talk.take() == []
    svc.take_seat(state.game_id, "p0")
    got: list[Batch] = []
    taken(sub, bool, got)
    assert got[-1].version == state.version + 1 and sub.pending is not None
    hub.unsubscribe(sub)
    hub.unlisten(talk)

    assert list(sent("v" * (HELD_TEXT + 1))) == [b"v" * (HELD_TEXT + 1), b""]
    assert list(sent("k\n")) == [b"k\n"]


def test_a_body_is_its_primed_generator_and_closing_it_runs_what_was_asked() -> None:
    """The stream's body (what the server iterates) is its generator, run to its
    opening before the response begins; closing it ends the generator first,
    then runs what the response was to run on close; a generator that does not
    first yield the opened mark is refused."""
    seen: list[str] = []

    def lines() -> Generator[bytes, None, None]:
        seen.append("opening")
        try:
            yield b""
            yield b"a\n"
            yield b"b\n"
        finally:
            seen.append("ended")

    body = Opened(lines())
    assert seen == ["opening"]
    body.on_close(lambda: seen.append("closed"))
    assert next(body) == b"a\n"
    body.close()
    assert seen == ["opening", "ended", "closed"]
    body.close()  # a second close runs nothing again
    assert seen == ["opening", "ended", "closed"]

    def unprimed() -> Generator[bytes, None, None]:
        try:
            yield b"x\n"
        finally:
            seen.append("unprimed ended")

    with pytest.raises(ValueError, match="first yields an empty text"):
        Opened(unprimed())
    assert seen[-1] == "unprimed ended"  # and what it held is let go
