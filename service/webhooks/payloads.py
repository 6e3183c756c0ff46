"""The body of a delivery: what happened, where, for which seat, and until when.

Built from the delivery's record alone (:class:`service.store.hooks.DeliveryRecord`),
so every attempt and every redelivery sends the same bytes. It never holds a
card, a token or a seed: only the game id, the seat, the event, the game's
version, the times and a link to the table's page.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from service.store.hooks import DeliveryRecord

FIELDS = ("delivery_id", "event", "game_id", "seat", "version", "at", "deadline_at", "url")
"""Every field a payload has, and no other."""


def iso(ms: int | None) -> str | None:
    if ms is None:
        return None
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="milliseconds")


def payload(game_id: str, record: DeliveryRecord, public_url: str) -> dict[str, Any]:
    return {
        "delivery_id": record.delivery_id,
        "event": record.event,
        "game_id": game_id,
        "seat": record.seat,
        "version": record.version,
        "at": iso(record.at_ms),
        "deadline_at": iso(record.deadline_ms),
        "url": f"{public_url.rstrip('/')}/table/{game_id}",
    }


def body(game_id: str, record: DeliveryRecord, public_url: str) -> bytes:
    """The delivery's bytes (compact JSON, keys in a fixed order)."""
    return json.dumps(payload(game_id, record, public_url), separators=(",", ":")).encode()
