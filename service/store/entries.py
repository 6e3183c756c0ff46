"""Single entries of a game's stream, read by their place rather than as events:
:class:`StreamEntries` (``store.entries``) reads one entry's id and time; the
stream itself belongs to :class:`service.store.EventStore`."""

from __future__ import annotations

from typing import Any, cast

from . import keys
from .clients import Client


class StreamEntries:
    """The time and id of single entries of a game's stream."""

    def __init__(self, redis: Client) -> None:
        self._redis = redis

    def entry_time(self, game_id: str, version: int) -> int | None:
        """When the game's event ``version`` was appended (ms, the time part of its
        entry id); ``None`` when the stream no longer has it."""
        name = str(version)
        rows = cast(
            list[tuple[bytes, Any]],
            self._redis.xrange(keys.events(game_id), min=name, max=name, count=1),
        )
        return keys.entry_time(rows[0][0]) if rows else None

    def last_id(self, game_id: str) -> str | None:
        """The id (``<version>-<at_ms>``) of the game's last entry (``None``: no stream)."""
        rows = cast(list[tuple[Any, Any]], self._redis.xrevrange(keys.events(game_id), count=1))
        if not rows:
            return None
        raw = rows[0][0]
        return raw.decode() if isinstance(raw, bytes) else str(raw)
