"""What a seat may do with its webhooks: subscribe, list, delete, rotate the
secret, read the delivery log and redeliver.

A subscription belongs to the seat whose token made it; another seat's is
not found. Its secret is shown once, when made or rotated, and never again.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from service.config import Settings
from service.errors import TooManyWebhooks, WebhookNotFound, WebhooksClosed
from service.store import EventStore
from service.store.hooks import DeliveryRecord, Subscription

from . import EVENTS

if TYPE_CHECKING:  # httpx (under it) is for the workers that send; the API never loads it
    from .outbound import Outbound

HOOK_ID_BYTES: Final = 8
SECRET_BYTES: Final = 32
LOG_LIMIT: Final = 200
"""The most deliveries of a game the log lists."""

Enqueue = Callable[[str, str, int], None]
"""``enqueue(game_id, delivery_id, token)``: have a worker send a delivery now."""


def public(sub: Subscription, secret: bool = False) -> dict[str, Any]:
    """A subscription as its seat sees it (the secret only when asked, i.e. once)."""
    info = sub.info
    out: dict[str, Any] = {
        "id": sub.hook_id,
        "url": info["url"],
        "events": list(sub.events),
        "seat": sub.seat,
        "status": sub.state if sub.state != "on" else "active",
        "created_at": info["created_at"],
        "failures": int(info.get("failures") or 0),
        "paused": info.get("paused") if sub.state == "paused" else None,
    }
    if secret:
        out["secret"] = info["secret"]
    return out


def delivery_view(record: DeliveryRecord, state: dict[str, Any] | None) -> dict[str, Any]:
    state = state or {"status": "queued", "attempts": []}
    return {
        "id": record.delivery_id,
        "webhook_id": record.hook_id,
        "event": record.event,
        "seat": record.seat,
        "version": record.version,
        "at": record.at_ms,
        "deadline": record.deadline_ms,
        "status": state["status"],
        "next_at": state.get("next_at"),
        "attempts": state["attempts"],
    }


@dataclass
class Webhooks:
    store: EventStore
    settings: Settings
    outbound: Outbound
    enqueue: Enqueue

    def create(
        self, game_id: str, seat: int, over: bool, url: str, events: Sequence[str], owner: str
    ) -> dict[str, Any]:
        if over:
            raise WebhooksClosed()
        self.outbound.check(url)
        wanted = tuple(e for e in EVENTS if e in set(events))
        info = {
            "game_id": game_id,
            "url": url,
            "secret": "whsec_" + secrets.token_urlsafe(SECRET_BYTES),
            "created_at": self.store.now_ms(game_id),
            "owner": owner,
            "failures": 0,
        }
        sub = Subscription(secrets.token_hex(HOOK_ID_BYTES), seat, wanted, "on", info)
        added = self.store.hooks.subscribe(
            game_id, sub, self.settings.webhooks_per_game, self.settings.webhooks_per_seat
        )
        if added == 0:
            raise TooManyWebhooks("game", self.settings.webhooks_per_game)
        if added < 0:
            raise TooManyWebhooks("seat", self.settings.webhooks_per_seat)
        return public(sub, secret=True)

    def mine(self, game_id: str, seat: int) -> list[Subscription]:
        return [s for s in self.store.hooks.subscriptions(game_id) if s.seat == seat]

    def one(self, game_id: str, seat: int, hook_id: str) -> Subscription:
        sub = self.store.hooks.subscription(game_id, hook_id)
        if sub is None or sub.seat != seat:
            raise WebhookNotFound("webhook", hook_id)
        return sub

    def delete(self, game_id: str, seat: int, hook_id: str) -> None:
        self.one(game_id, seat, hook_id)
        self.store.hooks.remove(game_id, hook_id)

    def rotate(self, game_id: str, seat: int, hook_id: str) -> dict[str, Any]:
        sub = self.one(game_id, seat, hook_id)
        info = {**sub.info, "secret": "whsec_" + secrets.token_urlsafe(SECRET_BYTES)}
        self.store.hooks.set_info(game_id, hook_id, info)
        return public(Subscription(sub.hook_id, sub.seat, sub.events, sub.state, info), True)

    def deliveries(self, game_id: str, seat: int, hook_id: str) -> list[dict[str, Any]]:
        self.one(game_id, seat, hook_id)
        ids = [i for i in self.store.hooks.log(game_id, LOG_LIMIT) if i.startswith(hook_id + ".")]
        records = self.store.hooks.records(game_id, ids)
        states = self.store.hooks.states(game_id, ids)
        return [delivery_view(r, states.get(r.delivery_id)) for r in records]

    def redeliver(self, game_id: str, seat: int, hook_id: str, delivery_id: str) -> dict[str, Any]:
        """Send a delivery again, with the same id and body (and resume its
        subscription if it was paused)."""
        sub = self.one(game_id, seat, hook_id)
        hooks = self.store.hooks
        record = (
            hooks.record(game_id, delivery_id) if delivery_id.startswith(hook_id + ".") else None
        )
        if record is None:
            raise WebhookNotFound("delivery", delivery_id)
        if sub.state == "paused":
            hooks.set_state(game_id, hook_id, "on")
            hooks.set_info(game_id, hook_id, {**sub.info, "failures": 0, "paused": None})
            hooks.unmark_paused(game_id, hook_id)
        state = hooks.state(game_id, delivery_id) or {"attempts": []}
        now = self.store.now_ms(game_id)
        state.update(status="queued", next_at=now, redelivered=True, round=len(state["attempts"]))
        hooks.set_delivery_state(game_id, delivery_id, state)
        hooks.schedule(game_id, delivery_id, now)
        self.enqueue(game_id, delivery_id, now)
        return delivery_view(record, state)
