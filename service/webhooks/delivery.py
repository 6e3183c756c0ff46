"""A worker's delivery of one queued delivery: claim it, send it, log it, decide what next.

A delivery is claimed first (:meth:`service.store.hooks.HookStore.claim`), so
two workers never send it at once; one whose worker died with the claim falls
due again a lease later and the sweep hands it to another (at least once).
After the attempt, the log gets its status, time and the first bytes of the
reply; then the delivery is done, or due again after a backoff
(:mod:`.backoff`): for ``turn_started`` never past the turn's deadline, for the
other events never past ``CARDROOM_WEBHOOK_RETRY_WINDOW_S`` after the event.
After ``CARDROOM_WEBHOOK_PAUSE_AFTER`` failed attempts in a row the
subscription is paused, with its reason, until the seat redelivers.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Final

from service.config import Settings
from service.metrics import (
    WEBHOOK_ATTEMPT_SECONDS,
    WEBHOOK_ATTEMPTS,
    WEBHOOK_DELIVERIES,
    WEBHOOK_LAG_SECONDS,
)
from service.store import EventStore
from service.store.hooks import DeliveryRecord, Subscription

from . import backoff, payloads
from .outbound import Attempt, Outbound
from .receiver import DELIVERY_HEADER, SIGNATURE_HEADER, signature_header

log = logging.getLogger("cardroom.webhooks")

ATTEMPTS_KEPT: Final = 20
"""Attempts of one delivery its log keeps (the latest)."""


def attempt_result(attempt: Attempt) -> str:
    if attempt.ok:
        return "ok"
    if attempt.status is not None and attempt.error is None:
        return "http_error"
    error = attempt.error or "other"
    for known in ("timeout", "connect", "blocked"):
        if error.startswith(known):
            return known
    return "http_error" if attempt.status is not None else "other"


@dataclass
class Deliverer:
    store: EventStore
    settings: Settings
    outbound: Outbound

    def run(
        self, game_id: str, delivery_id: str, token: int, *, claimed: bool = False
    ) -> str | None:
        """Deliver if the claim holds (``claimed``: the caller holds it already,
        from :meth:`~service.store.hooks.HookStore.claim_due`); the delivery's
        status after, ``None`` if not claimed."""
        hooks = self.store.hooks
        lease_ms = int(self.settings.webhook_lease_s * 1000)
        if not claimed and not hooks.claim(game_id, delivery_id, token, lease_ms):
            return None
        record = hooks.record(game_id, delivery_id)
        sub = None if record is None else hooks.subscription(game_id, record.hook_id)
        state = hooks.state(game_id, delivery_id) or {"status": "queued", "attempts": []}
        if record is None or sub is None:
            return self._end(game_id, delivery_id, state, "dropped")
        if sub.state == "paused":
            return self._end(game_id, delivery_id, state, "paused")
        now = self.store.now_ms(game_id)
        if not state["attempts"]:
            WEBHOOK_LAG_SECONDS.observe(max(0.0, (now - record.at_ms) / 1000))
        asked = bool(state.get("redelivered"))
        if record.deadline_ms is not None and now > record.deadline_ms and not asked:
            return self._end(game_id, delivery_id, state, "expired")
        attempt = self._send(game_id, record, sub, now)
        state["redelivered"] = False
        return self._after(game_id, record, sub, state, attempt, now)

    def _send(self, game_id: str, record: DeliveryRecord, sub: Subscription, now: int) -> Attempt:
        body = payloads.body(game_id, record, self.settings.public_url)
        headers = {
            SIGNATURE_HEADER: signature_header(sub.info["secret"], now // 1000, body),
            DELIVERY_HEADER: record.delivery_id,
        }
        attempt = self.outbound.send(sub.info["url"], body, headers)
        WEBHOOK_ATTEMPTS.labels(attempt_result(attempt)).inc()
        WEBHOOK_ATTEMPT_SECONDS.observe(attempt.seconds)
        return attempt

    def _after(
        self,
        game_id: str,
        record: DeliveryRecord,
        sub: Subscription,
        state: dict[str, Any],
        attempt: Attempt,
        now: int,
    ) -> str:
        hooks = self.store.hooks
        state["attempts"] = [*state["attempts"], _logged(attempt, now)][-ATTEMPTS_KEPT:]
        info = dict(sub.info)
        if attempt.ok:
            if info.get("failures"):
                info["failures"] = 0
                hooks.set_info(game_id, sub.hook_id, info)
            return self._end(game_id, record.delivery_id, state, "delivered")
        info["failures"] = int(info.get("failures") or 0) + 1
        if info["failures"] >= self.settings.webhook_pause_after:
            info["paused"] = {
                "reason": "failing",
                "failures": info["failures"],
                "last": _last(attempt),
                "at": now,
            }
            outcome = self._end(game_id, record.delivery_id, state, "paused")
            hooks.set_info(game_id, sub.hook_id, info)
            hooks.set_state(game_id, sub.hook_id, "paused")
            hooks.mark_paused(game_id, sub.hook_id, now)
            log.warning(
                "webhook paused",
                extra={"game_id": game_id, "hook": sub.hook_id, "failures": info["failures"]},
            )
            return outcome
        hooks.set_info(game_id, sub.hook_id, info)
        retry = len(state["attempts"]) - int(state.get("round", 0))
        due = now + backoff.delay_ms(
            retry, self.settings.webhook_retry_base_s, self.settings.webhook_retry_max_s
        )
        until = record.deadline_ms
        if until is None:
            until = record.at_ms + int(self.settings.webhook_retry_window_s * 1000)
        if due > until:
            outcome = "expired" if record.deadline_ms is not None else "failed"
            return self._end(game_id, record.delivery_id, state, outcome)
        state["attempts"][-1]["retry_in_ms"] = due - now
        state["status"], state["next_at"] = "retrying", due
        hooks.set_delivery_state(game_id, record.delivery_id, state)
        hooks.schedule(game_id, record.delivery_id, due)
        return "retrying"

    def _end(self, game_id: str, delivery_id: str, state: dict[str, Any], outcome: str) -> str:
        state["status"], state["next_at"] = outcome, None
        self.store.hooks.set_delivery_state(game_id, delivery_id, state)
        self.store.hooks.unschedule(game_id, delivery_id)
        WEBHOOK_DELIVERIES.labels(outcome).inc()
        return outcome


def _logged(attempt: Attempt, now: int) -> dict[str, Any]:
    return {
        "at": now,
        "status": attempt.status,
        "ms": round(attempt.seconds * 1000, 1),
        "reply": attempt.reply.decode("utf-8", "replace"),
        "error": attempt.error,
        "retry_in_ms": None,
    }


def _last(attempt: Attempt) -> str:
    if attempt.error and attempt.status is None:
        return attempt.error
    return f"HTTP {attempt.status}"
