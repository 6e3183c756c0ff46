"""What the application service answers with, rendered in one place.

A command's answer is built once, right after its decision, from the new
state and the events appended: the HTTP layer sends it as it is, and an
idempotent request keeps it with its key so that a retry gets the very same
bytes (:mod:`service.idempotency`). Every event a seat is shown passes
through :func:`~service.engines.table.redact` for that seat first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import orjson

from schemas.codec import encode_event
from service.engines import table
from service.engines.base import JSON, Event


@dataclass(frozen=True, slots=True)
class MoveResult:
    body: JSON
    """``{"version", "first_version", "events"}`` as the moving seat may see them."""
    replayed: bool = False
    """True when an idempotent retry was answered from the first attempt's record."""
    text: str | None = None
    """``body`` as compact JSON, when it was already encoded."""


@dataclass(frozen=True, slots=True)
class SeatGrant:
    seat: int
    name: str
    bot: bool
    client_seed: str
    token: str | None
    """The seat's bearer token: only ever here, never stored (``None`` for a bot)."""
    state: table.Table


@dataclass(frozen=True, slots=True)
class Creation:
    state: table.Table
    """The table: the one just opened, or the one a repeat of its request is answered with."""
    replayed: bool = False
    """True when an earlier request with this idempotency key opened it."""


def event_json(version: int, event: Event, at_ms: int | None = None) -> JSON:
    """An event as the API shows it: its version (and time), type, schema version, fields."""
    out: JSON = {"version": version}
    if at_ms is not None:
        out["at_ms"] = at_ms
    out.update(encode_event(event))
    return out


def move_body(new_state: table.Table, events: Sequence[Event], seat: int) -> tuple[JSON, str]:
    """The answer to ``seat``'s move: the events it appended as that seat may see
    them, and the same as compact JSON."""
    first = new_state.version - len(events) + 1
    body: JSON = {
        "game": new_state.kind,
        "version": new_state.version,
        "first_version": first,
        "events": [
            event_json(first + i, table.redact(new_state, e, seat)) for i, e in enumerate(events)
        ],
    }
    return body, orjson.dumps(body).decode()


def seat_record(taken: table.SeatTaken) -> JSON:
    """What a seat request's answer is rebuilt from: the seat, its name and client seed."""
    return {"seat": taken.seat, "name": taken.name, "client_seed": taken.client_seed}
