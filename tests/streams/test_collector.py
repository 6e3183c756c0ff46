"""The stream server keeps its open streams out of the garbage collector's full
passes (service/hub/collector.py): what is alive is frozen every so many streams
opened, and the cycles ended streams leave are reclaimed once enough have ended,
so they stay bounded."""

from __future__ import annotations

import gc
import threading
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.api.live import NdjsonLines, process_hub
from service.config import load_settings
from service.engines import table
from service.hub import Collector, Hub
from service.runtime import Runtime
from service.streams import create_app

ROOT = Path(__file__).resolve().parents[2]


class FakeGc:
    """Records what the collector asked of :mod:`gc`."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def freeze(self) -> None:
        self.calls.append("freeze")

    def unfreeze(self) -> None:
        self.calls.append("unfreeze")

    def collect(self, generation: int = 2) -> int:
        self.calls.append(f"collect{generation}")
        return 0

    def get_freeze_count(self) -> int:
        return 0


def test_what_is_alive_is_frozen_every_so_many_streams_opened() -> None:
    fake = FakeGc()
    collector = Collector(250, collector=fake)
    for _ in range(249):
        collector.stream_opened()
    assert fake.calls == []
    collector.stream_opened()
    assert fake.calls == ["freeze"]
    for _ in range(500):
        collector.stream_opened()
    assert fake.calls == ["freeze"] * 3


def test_ended_streams_are_reclaimed_once_they_reach_half_of_those_open() -> None:
    fake = FakeGc()
    collector = Collector(100, collector=fake)
    for _ in range(1000):
        collector.stream_opened()
    fake.calls.clear()
    for _ in range(333):  # 333 ended, 667 open
        collector.stream_ended()
    assert fake.calls == []
    collector.stream_ended()  # 334 ended: at least half of the 666 open
    assert fake.calls == ["unfreeze", "collect2", "freeze"]
    fake.calls.clear()
    for _ in range(221):  # 221 ended since, 445 open
        collector.stream_ended()
    assert fake.calls == []
    collector.stream_ended()
    assert fake.calls == ["unfreeze", "collect2", "freeze"]


def test_few_streams_wait_for_at_least_freeze_every_ends() -> None:
    """With few streams open, a reclaim (a full pass) comes no more often than
    once per ``freeze_every`` streams ended."""
    fake = FakeGc()
    collector = Collector(100, collector=fake)
    for _ in range(3):
        for _ in range(10):
            collector.stream_opened()
        for _ in range(10):
            collector.stream_ended()
    assert fake.calls == []
    for _ in range(70):
        collector.stream_opened()
        collector.stream_ended()
    # the 100th opened froze; the 100th ended reclaims
    assert fake.calls == ["freeze", "unfreeze", "collect2", "freeze"]


class Cycle:
    """An object in a reference cycle, as an ended stream's frames and errors leave."""

    def __init__(self) -> None:
        self.me = self


@pytest.fixture
def real_gc() -> Iterator[None]:
    gc.collect()
    before = gc.get_freeze_count()
    yield
    gc.unfreeze()  # this process froze nothing of its own before
    assert before == 0 or gc.get_freeze_count() == 0


def test_frozen_cycles_are_kept_until_the_reclaim_frees_them(real_gc: None) -> None:
    collector = Collector(10)
    cycle = Cycle()
    alive = weakref.ref(cycle)
    for _ in range(10):
        collector.stream_opened()
    assert gc.get_freeze_count() > 0
    del cycle
    gc.collect()
    assert alive() is not None, "a frozen cycle was walked by a full pass"
    for _ in range(10):
        collector.stream_ended()
    assert alive() is None, "the reclaim left an ended stream's cycle"
    assert gc.get_freeze_count() > 0  # frozen again


def test_the_hub_counts_each_stream_once(real_gc: None) -> None:
    settings = load_settings(redis_url=None)
    svc = Runtime.from_settings(settings).service()
    fake = FakeGc()
    collector = Collector(2, reclaim_share=1.0, collector=fake)
    hub = Hub(svc.store, NdjsonLines(svc.store), collector=collector)
    state = svc.create_game("murlan")
    loaded: table.Table = svc.load(state.game_id)
    subs = [hub.subscribe(loaded, None, threading.Event())[0] for _ in range(2)]
    assert fake.calls == ["freeze"]
    for sub in subs:
        hub.unsubscribe(sub)
        hub.unsubscribe(sub)  # a stream's second way out
    assert collector.open == 0 and fake.calls == ["freeze", "unfreeze", "collect2", "freeze"]


def test_the_stream_server_as_deployed_freezes() -> None:
    conf = (ROOT / "deploy" / "gunicorn-streams.conf.py").read_text()
    assert 'setdefault("CARDROOM_STREAM_GC_FREEZE_EVERY", "250")' in conf


@pytest.mark.parametrize(("every", "made"), [(0, False), (250, True)])
def test_the_setting_gives_the_process_hub_its_collector(every: int, made: bool) -> None:
    settings = load_settings(redis_url=None, stream_gc_freeze_every=every)
    app = create_app(settings)
    with app.app_context():
        hub = process_hub(app.extensions["cardroom"])
    assert (hub.collector is not None) == made
    if hub.collector is not None:
        assert hub.collector.freeze_every == every
