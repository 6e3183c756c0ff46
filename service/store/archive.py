"""Archives: a game's events as JSON Lines, exactly as stored, and back.

One line per event, ``{"version", "at_ms", "event": {"type",
"schema_version", ...fields}}``. An export keeps each event in the schema
version it was written with (stored events are never rewritten), so an
import puts back the very same stream; reading it upcasts as usual.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeGuard

from schemas.codec import EventDecodeError, decode_event
from schemas.compact import compact
from service.engines.table import GameCreated

from . import keys
from .errors import CorruptExport, GameExists, GameNotFound, VersionConflict
from .eventstore import EventStore

ENVELOPE = ("type", "schema_version")


@dataclass(frozen=True, slots=True)
class ArchivedEvent:
    version: int
    at_ms: int
    event: dict[str, Any]
    """``{"type", "schema_version", ...fields}`` as exported."""


def export_jsonl(store: EventStore, game_id: str) -> str:
    """The game's events as JSON Lines. It holds every hand as dealt: it is
    an archive, not a view."""
    raw = store.read_raw(game_id)
    if not raw:
        raise GameNotFound(game_id)
    lines = []
    for entry in raw:
        event = {"type": entry.type, "schema_version": entry.schema_version}
        event.update(json.loads(entry.data))
        line = {"version": entry.version, "at_ms": entry.at_ms, "event": event}
        lines.append(json.dumps(line, separators=(",", ":"), ensure_ascii=False))
    return "\n".join(lines) + "\n"


def import_jsonl(store: EventStore, text: str, step: Callable[[], None] | None = None) -> str:
    """Store an export as a new game; returns its id.

    Every event is validated against its schema (upcasting older ones, and
    refusing unknown fields), versions must run 1, 2, 3…, and an existing
    game is never overwritten (:class:`GameExists`). Broken input raises
    :class:`CorruptExport` naming the line. ``step`` is called once per event
    checked (``cardroom import``'s progress).
    """
    archived = parse_export(text)
    first = archived[0].event
    if first.get("type") != GameCreated.type:
        raise CorruptExport(1, "the first event must be GameCreated")
    game, game_id = first.get("game"), first.get("game_id")
    if not isinstance(game, str) or not isinstance(game_id, str):
        raise CorruptExport(1, "GameCreated names no game or game id")
    keys.check_game_id(game_id)
    entries: list[tuple[str, int, bytes, int]] = []
    for line, item in enumerate(archived, start=1):
        try:
            decode_event(game, item.event, strict=True)
        except (EventDecodeError, ValueError) as exc:
            raise CorruptExport(line, str(exc)) from None
        fields = {k: v for k, v in item.event.items() if k not in ENVELOPE}
        data = json.dumps(fields, separators=(",", ":"), ensure_ascii=False).encode()
        version = item.event.get("schema_version", 1)
        entries.append((item.event["type"], version, compact(data), item.at_ms))
        if step is not None:
            step()
    try:
        store.append_stored(game_id, entries, 0)
    except VersionConflict:
        raise GameExists(game_id) from None
    return game_id


def parse_export(text: str) -> list[ArchivedEvent]:
    """The lines of an export, checked for shape and contiguous versions."""
    archived: list[ArchivedEvent] = []
    for line_no, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as exc:
            raise CorruptExport(line_no, f"not JSON: {exc}") from None
        if not isinstance(row, dict) or not isinstance(row.get("event"), dict):
            raise CorruptExport(line_no, 'expected {"version", "at_ms", "event": {...}}')
        version, at_ms = row.get("version"), row.get("at_ms")
        if not _natural(version) or not _natural(at_ms):
            raise CorruptExport(line_no, "version and at_ms must be non-negative integers")
        if version != len(archived) + 1:
            due = len(archived) + 1
            raise CorruptExport(line_no, f"version {version} where {due} was due: no gaps allowed")
        archived.append(ArchivedEvent(version, at_ms, row["event"]))
    if not archived:
        raise CorruptExport(0, "no events")
    return archived


def _natural(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0
