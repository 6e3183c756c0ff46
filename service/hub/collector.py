"""Open streams kept out of the cyclic garbage collector's full passes.

An idle stream is tracked objects that live as long as it does (the hub's
subscriber and talk listener, its lines; before streams were parked,
:mod:`service.parking`, also its greenlet and gunicorn's request and
response, some 60–80 objects). The
collector's full pass walks every tracked object and stops the whole process
meanwhile: at 10,000 streams one pass took half a second, and every stream's
next line waited for it (bench/README.md, "Ten thousand live streams"). A
full pass comes once the objects promoted since the last reach a quarter of
those alive, so it follows the streams as they open.

:class:`Collector` moves what is alive into the permanent generation
(:func:`gc.freeze`, a constant-time splice) after every ``freeze_every``
streams opened: what the streams hold is then never walked, and the passes
that still come walk only what was made since. Objects that were frozen are
still freed by their reference counts when their stream ends; only cycles
among them wait. Once the streams ended since the last reclaim reach
``reclaim_share`` of those open (and ``freeze_every`` at least), their
cycles are reclaimed in one full pass (:func:`gc.unfreeze`, a full
collection, and a freeze again): the garbage a churn of streams leaves stays
below that share of what the open streams hold, and a full pass comes once
per that many streams ended rather than as the streams open.
"""

from __future__ import annotations

import gc
import logging
import threading
import time
from typing import Protocol

log = logging.getLogger("cardroom.hub")


class GcModule(Protocol):
    """What :class:`Collector` uses of :mod:`gc` (a fake in tests)."""

    def freeze(self) -> None: ...

    def unfreeze(self) -> None: ...

    def collect(self, generation: int = 2) -> int: ...

    def get_freeze_count(self) -> int: ...


class Collector:
    """Counts streams opened and ended, and freezes or reclaims accordingly."""

    def __init__(
        self, freeze_every: int, reclaim_share: float = 0.5, collector: GcModule | None = None
    ) -> None:
        self.freeze_every = max(1, freeze_every)
        self.reclaim_share = reclaim_share
        self.gc: GcModule = collector or gc
        self.lock = threading.Lock()
        self.open = 0
        """Streams open now."""
        self.opened = 0
        """Streams opened since the last freeze."""
        self.ended = 0
        """Streams ended since the last reclaim (their cycles may wait, frozen)."""

    def stream_opened(self) -> None:
        with self.lock:
            self.open += 1
            self.opened += 1
            if self.opened < self.freeze_every:
                return
            self.opened = 0
        self.gc.freeze()

    def stream_ended(self) -> None:
        with self.lock:
            self.open = max(0, self.open - 1)
            self.ended += 1
            if self.ended < max(self.freeze_every, self.reclaim_share * self.open):
                return
            self.ended = 0
        self.reclaim()

    def reclaim(self) -> None:
        """One full pass over everything, frozen objects included; then freeze again."""
        started = time.perf_counter()
        self.gc.unfreeze()
        found = self.gc.collect()
        self.gc.freeze()
        log.info(
            "hub: ended streams' cycles reclaimed",
            extra={
                "collected": found,
                "frozen_objects": self.gc.get_freeze_count(),
                "duration_ms": round((time.perf_counter() - started) * 1000, 1),
            },
        )
