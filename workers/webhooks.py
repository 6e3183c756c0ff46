"""The webhook jobs: deliver one queued delivery, and the sweep that hands out due ones.

An append that queues deliveries enqueues one :func:`deliver` job each at
once; the sweep (:func:`sweep`, run by every timers loop) claims the ones
due again (retries, and any whose job or worker was lost) and enqueues a job
for each. Claims are atomic and leased (:mod:`service.store.hooks`), so any
number of processes may sweep, and a delivery lost with its worker (even
``kill -9`` mid-attempt) is sent again a lease later.
"""

from __future__ import annotations

from typing import Final

from service.metrics import WEBHOOKS_PAUSED
from service.runtime import Runtime
from service.webhooks.delivery import Deliverer

from .context import context

SWEEP_BATCH: Final = 200
"""Due deliveries one sweep claims at most."""


def deliverer(runtime: Runtime) -> Deliverer:
    return Deliverer(runtime.store, runtime.settings, runtime.outbound)


def deliver(game_id: str, delivery_id: str, token: int) -> str | None:
    """The job: send one delivery if its claim (``token``) still holds."""
    return deliverer(context().runtime).run(game_id, delivery_id, int(token))


def sweep(runtime: Runtime) -> int:
    """Claim the due deliveries and enqueue their jobs; how many."""
    hooks = runtime.store.hooks
    lease_ms = int(runtime.settings.webhook_lease_s * 1000)
    claimed = hooks.claim_due(SWEEP_BATCH, lease_ms)
    for game_id, delivery_id, token in claimed:
        runtime.enqueue_delivery(game_id, delivery_id, token)
    WEBHOOKS_PAUSED.set(hooks.paused_count())
    return len(claimed)


def next_due_in_ms(runtime: Runtime) -> int | None:
    """Milliseconds until the next delivery falls due, by Redis's clock (``None``: none)."""
    first = runtime.store.hooks.next_due_ms()
    if first is None:
        return None
    return max(0, first - runtime.store.now_ms())
