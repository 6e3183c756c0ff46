"""The timers loop: fires due timers and runs the reconciler's passes.

Every ``cardroom worker`` process runs it in a thread, ``cardroom scheduler``
runs it as its main loop, and the embedded worker calls :meth:`Ticker.tick`
between jobs. Claims of due timers are atomic and leased (see
:mod:`service.store.followups`), so any number of processes may fire them and a
timer whose claimer died fires again a lease later; a reconciler pass runs
in one process at a time (a short lock in Redis), at most once per
``CARDROOM_RECONCILE_INTERVAL_S`` across all of them. Nothing depends on one
particular process staying alive.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Final

from service.runtime import Runtime
from service.store.errors import STORE_UNAVAILABLE

from .context import install

log = logging.getLogger("cardroom.timers")

REDIS_ERRORS: Final = STORE_UNAVAILABLE
LONGEST_PAUSE_S: Final = 2.0
"""The longest pause between two tries while Redis does not answer."""


class Ticker:
    """One process's share of the timers and the reconciler."""

    def __init__(self, runtime: Runtime, *, reconcile: bool = True) -> None:
        self.runtime = runtime
        self.reconcile = reconcile
        self.poll_s = runtime.settings.timer_poll_s
        self.reconcile_every_s = runtime.settings.reconcile_interval_s
        self._next_reconcile = 0.0

    def tick(self) -> int:
        """Fire the due timers, and run a reconciler pass if one is due and no
        other process runs it; how many timers fired."""
        fired = len(self.runtime.followups.fire_due())
        if self.reconcile and time.monotonic() >= self._next_reconcile:
            self._next_reconcile = time.monotonic() + self.reconcile_every_s
            if self._take_turn():
                from .reconcile import reconcile_pass

                reconcile_pass()
        return fired

    def _take_turn(self) -> bool:
        """The reconciler's lock for one interval (not released: the interval
        holds across processes)."""
        ttl_ms = max(1, int(self.reconcile_every_s * 1000) - 50)
        return self.runtime.locks.reconciler(ttl_ms)

    def run(self, stop: threading.Event) -> None:
        """Tick every ``CARDROOM_TIMER_POLL_S`` until ``stop``; rides out Redis
        being away (each try fails within the client's socket timeout)."""
        install_if_needed(self.runtime)
        pause = self.poll_s
        away = False
        while not stop.is_set():
            try:
                self.tick()
            except REDIS_ERRORS as exc:
                if not away:
                    log.warning("timers: Redis away", extra={"reason": type(exc).__name__})
                away = True
                pause = min(LONGEST_PAUSE_S, max(pause * 2, 0.1))
            except Exception:
                log.exception("timers: tick failed; going on")
                pause = self.poll_s
            else:
                if away:
                    log.warning("timers: Redis back")
                away = False
                pause = self.poll_s
            stop.wait(pause)

    def start_thread(self, stop: threading.Event) -> threading.Thread:
        thread = threading.Thread(target=self.run, args=(stop,), name="cardroom-timers")
        thread.daemon = True
        thread.start()
        return thread


def install_if_needed(runtime: Runtime) -> None:
    """Make ``runtime`` the jobs' context unless this process has one for it."""
    from .context import _current

    if _current is None or _current.runtime is not runtime:
        install(runtime)
