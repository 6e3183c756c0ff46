"""The webhook senders: each worker process hands due deliveries to a few threads.

A sender claims the due deliveries (new ones, whose append put them in the due
set at their event's time, and retries that fell due), up to its free threads,
and sends each on one of them; then it blocks until an append wakes it (a
``BLPOP`` on a short list, :meth:`service.store.hooks.HookStore.wake`) or the
next delivery falls due. Claims are atomic and leased
(:mod:`service.store.hooks`), so any number of processes may send, and a
delivery lost with its worker (even ``kill -9`` mid-attempt) falls due again a
lease later and another sends it. A slow receiver holds one thread for at most
``CARDROOM_WEBHOOK_TIMEOUT_S``, never the games' follow-ups.
"""

from __future__ import annotations

import logging
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Final

from service.metrics import WEBHOOKS_PAUSED
from service.runtime import Runtime
from service.store.errors import STORE_UNAVAILABLE
from service.webhooks.delivery import Deliverer

log = logging.getLogger("cardroom.webhooks")

IDLE_WAIT_S: Final = 0.5
"""The longest a sender blocks with nothing due (under the store client's socket timeout)."""
SENDER_THREADS: Final = 8
"""Deliveries one process sends at once."""


def deliverer(runtime: Runtime) -> Deliverer:
    return Deliverer(runtime.store, runtime.settings, runtime.outbound)


def deliver_due(runtime: Runtime, limit: int = 200) -> int:
    """Claim and send the due deliveries here, one after another (the embedded
    worker's drain, and tests); how many were sent."""
    hooks = runtime.store.hooks
    lease_ms = int(runtime.settings.webhook_lease_s * 1000)
    claimed = hooks.claim_due(limit, lease_ms)
    send = deliverer(runtime)
    for game_id, delivery_id, token in claimed:
        send.run(game_id, delivery_id, token, claimed=True)
    return len(claimed)


def next_due_in_ms(runtime: Runtime) -> int | None:
    """Milliseconds until the next delivery falls due, by Redis's clock (``None``: none)."""
    first = runtime.store.hooks.next_due_ms()
    if first is None:
        return None
    return max(0, first - runtime.store.now_ms())


class Sender:
    """One process's webhook sender: a loop that claims, and threads that send."""

    def __init__(self, runtime: Runtime, threads: int = SENDER_THREADS) -> None:
        self.runtime = runtime
        self.threads = threads
        self._free = threading.Semaphore(threads)
        self._pool = ThreadPoolExecutor(threads, thread_name_prefix="cardroom-webhook")
        self._deliverer = deliverer(runtime)

    def start_thread(self, stop: threading.Event) -> threading.Thread:
        thread = threading.Thread(target=self.run, args=(stop,), name="cardroom-webhooks")
        thread.daemon = True
        thread.start()
        return thread

    def run(self, stop: threading.Event) -> None:
        """Claim and hand out due deliveries until ``stop``; rides out Redis being away."""
        while not stop.is_set():
            try:
                self.round()
            except STORE_UNAVAILABLE:
                stop.wait(IDLE_WAIT_S)
            except Exception:
                log.exception("webhooks: sender round failed; going on")
                stop.wait(IDLE_WAIT_S)
        self._pool.shutdown(wait=False, cancel_futures=True)

    def round(self) -> int:
        """One round: claim what is due (up to the free threads), hand it out, then
        wait for more; how many were handed out."""
        hooks = self.runtime.store.hooks
        free = 0
        while self._free.acquire(blocking=False):
            free += 1
        lease_ms = int(self.runtime.settings.webhook_lease_s * 1000)
        claimed = hooks.claim_due(free, lease_ms) if free else []
        for _ in range(free - len(claimed)):
            self._free.release()
        for game_id, delivery_id, token in claimed:
            self._pool.submit(self._send, game_id, delivery_id, token)
        WEBHOOKS_PAUSED.set(hooks.paused_count())
        if claimed and len(claimed) == free:
            return len(claimed)  # more may be due: look again at once
        due_in = next_due_in_ms(self.runtime)
        wait_s = IDLE_WAIT_S if due_in is None else min(IDLE_WAIT_S, due_in / 1000)
        if not free:
            wait_s = min(wait_s, 0.02)  # every thread busy: look again shortly
        if wait_s > 0:
            hooks.wait_for_work(wait_s)
        return len(claimed)

    def _send(self, game_id: str, delivery_id: str, token: int) -> None:
        try:
            self._deliverer.run(game_id, delivery_id, token, claimed=True)
        except Exception:
            log.exception("webhooks: delivery failed", extra={"game_id": game_id})
        finally:
            self._free.release()
