"""The idempotency records of game creation, reserved before a table is opened.

A ``POST /games`` with an idempotency key first reserves its record
(:meth:`CreationRecords.reserve`, one script: set it pending unless it
exists), so of any number of racing requests with the same key exactly one
opens a table; the others find the record, pending or naming the table. The
one that reserved it settles it (:meth:`CreationRecords.settle`): with the
table it opened, or freed again when it opened none. A pending record
expires after ``pending_ms`` (a request that died while opening its table),
a settled one after the idempotency TTL.

A record is JSON: ``{"fp": <the request's fingerprint>, "pending": <token>}``
while pending, ``{"fp": ..., "game_id": ...}`` once settled. Releases before
these records kept the bare game id, with no fingerprint (:data:`LEGACY`).
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from typing import Final

from . import lua
from .clients import Client

DEFAULT_PENDING_MS: Final = 30_000
"""How long a reservation may stay pending: far longer than opening a table takes."""
LEGACY: Final = ""
"""The fingerprint of a record an older release kept: unknown. Such a record is
answered as that release answered it, with its table whatever the body; it
expires within the idempotency TTL."""


@dataclass(frozen=True, slots=True)
class CreationRecord:
    """The record another request with the same key left."""

    fingerprint: str
    game_id: str | None
    """The table that request opened; ``None`` while it is still opening it."""
    raw: str
    """The record as stored, so that :meth:`CreationRecords.forget` drops only this one."""


@dataclass(frozen=True, slots=True)
class Reservation:
    """The key is this request's: it opens the table, then settles the record."""

    key: str
    fingerprint: str
    pending: str
    """The pending record as set, so only this request settles it."""


class CreationRecords:
    def __init__(self, redis: Client, ttl_ms: int, pending_ms: int = DEFAULT_PENDING_MS) -> None:
        self.ttl_ms = ttl_ms
        self.pending_ms = pending_ms
        self._reserve = redis.register_script(lua.CREATION_RESERVE)
        self._settle = redis.register_script(lua.CREATION_SETTLE)

    def reserve(self, key: str, fingerprint: str) -> Reservation | CreationRecord:
        """Reserve record ``key`` for a request of ``fingerprint``, or the record
        of the request that has it."""
        pending = _dump({"fp": fingerprint, "pending": secrets.token_hex(8)})
        kept = self._reserve(keys=[key], args=[pending, self.pending_ms])
        if not kept:
            return Reservation(key, fingerprint, pending)
        raw = kept.decode() if isinstance(kept, bytes) else str(kept)
        if not raw.startswith("{"):  # a record of an older release: the bare game id
            return CreationRecord(LEGACY, raw, raw)
        record = json.loads(raw)
        game_id = record.get("game_id")
        return CreationRecord(str(record["fp"]), None if game_id is None else str(game_id), raw)

    def settle(self, reservation: Reservation, game_id: str | None) -> bool:
        """Name the table the reserving request opened (``None``: it opened none,
        and the key is free again). ``False`` when the record is no longer
        this reservation's (it stayed pending past ``pending_ms``)."""
        done = "" if game_id is None else _dump({"fp": reservation.fingerprint, "game_id": game_id})
        args: list[str | int] = [reservation.pending, done, self.ttl_ms]
        return bool(self._settle(keys=[reservation.key], args=args))

    def forget(self, key: str, record: CreationRecord) -> bool:
        """Drop ``record`` (the table it names is gone), unless it changed meanwhile."""
        args: list[str | int] = [record.raw, "", self.ttl_ms]
        return bool(self._settle(keys=[key], args=args))


def _dump(record: dict[str, str]) -> str:
    return json.dumps(record, separators=(",", ":"), sort_keys=True)
