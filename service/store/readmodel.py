"""The read model the projection keeps beside each game's stream, named once.

- the snapshot hash (:func:`keys.snapshot`): its fields :data:`VERSION`,
  :data:`GAME`, :data:`STATE` and :data:`SCHEMA` (the state schema id it was
  written with), written by the append that projects itself and by
  :meth:`service.store.EventStore.save_snapshot`, read by the load;
- the turn marks in the game's meta hash (:func:`keys.meta`):
  :data:`TURN_FIELD` ``<seat>`` = ``<since_version>:<at_ms>``, where and when
  the seat's current turn began (:func:`turn_mark`);
- the chip ledger (:func:`keys.ledger`): settlements already made, written
  once each (``HSETNX``);
- the turn deadline: :func:`service.store.clock.turn_deadline_ms`, the same
  formula as the scripts' ``turn_deadline`` (:data:`service.store.clock.LUA`).

The scripts of :mod:`service.store.lua` take the field names from here
(:func:`lua_fields`), so Python and Lua cannot drift apart.
:class:`ReadModel` (``store.readmodel``) owns the turn marks and the ledger.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, Final, cast

from . import keys
from .clients import Client, Pipe
from .clock import turn_deadline_ms

VERSION: Final = "v"
"""The snapshot's version: how many events are folded into it."""
GAME: Final = "g"
"""The snapshot's game name (``hazari``…)."""
STATE: Final = "s"
"""The snapshot's encoded state."""
SCHEMA: Final = "h"
"""The state schema id the snapshot was written with."""
SNAPSHOT_FIELDS: Final = (VERSION, GAME, STATE, SCHEMA)
TURN_FIELD: Final = keys.TURN_FIELD
"""The prefix of the meta fields that say when each seat's turn began."""

__all__ = [
    "GAME",
    "SCHEMA",
    "SNAPSHOT_FIELDS",
    "STATE",
    "TURN_FIELD",
    "VERSION",
    "ReadModel",
    "lua_fields",
    "turn_deadline_ms",
    "turn_mark",
]


def lua_fields(script: str) -> str:
    """``script`` with the field names put in: ``$V``, ``$G``, ``$S``, ``$H``
    become the snapshot's fields and ``$TURN`` the turn
    marks' prefix, each as a quoted Lua string."""
    for token, name in (
        ("$TURN", TURN_FIELD),
        ("$V", VERSION),
        ("$G", GAME),
        ("$S", STATE),
        ("$H", SCHEMA),
    ):
        script = script.replace(token, f"'{name}'")
    if re.search(r"\$[A-Z]", script):
        raise ValueError("a script names a field lua_fields does not know")
    return script


def turn_field(seat: int | str) -> str:
    """The meta field of ``seat``'s turn mark."""
    return f"{TURN_FIELD}{seat}"


def turn_mark(since_version: int, at_ms: int) -> str:
    """A turn mark's value: the turn began with event ``since_version``, at ``at_ms``."""
    return f"{since_version}:{at_ms}"


def mark_time(mark: str) -> int:
    """When the turn of a mark (:func:`turn_mark`) began (ms)."""
    return int(mark.partition(":")[2])


class ReadModel:
    """The turn marks and the chip ledger of each game (see the module's docstring)."""

    def __init__(self, redis: Client) -> None:
        self._redis = redis

    def pipeline(self) -> Pipe:
        """A pipeline (no transaction) to queue a projection's writes on."""
        return self._redis.pipeline(transaction=False)

    @staticmethod
    def turn_marks_of(meta: Mapping[bytes, bytes]) -> dict[str, str]:
        """The turn marks (field → mark) among a meta hash's fields."""
        prefix = TURN_FIELD.encode()
        return {k.decode(): v.decode() for k, v in meta.items() if k.startswith(prefix)}

    @staticmethod
    def starts_of(marks: Mapping[str, str]) -> dict[int, int]:
        """Seat → when its turn began (ms), from turn marks."""
        return {int(k[len(TURN_FIELD) :]): mark_time(v) for k, v in marks.items()}

    def queue_read_marks(self, pipe: Pipe, game_id: str) -> None:
        """Queue the read of the game's meta hash (give its reply to :meth:`turn_marks_of`)."""
        pipe.hgetall(keys.meta(game_id))

    def turn_starts(self, game_id: str) -> dict[int, int]:
        """When each seat's current turn began (ms), as the projection recorded it."""
        meta = cast(dict[bytes, bytes], self._redis.hgetall(keys.meta(game_id)))
        return self.starts_of(self.turn_marks_of(meta))

    def queue_turn_marks(
        self, pipe: Pipe, game_id: str, cleared: Iterable[str], marks: Mapping[str, str]
    ) -> None:
        """Queue removing the turn-mark fields ``cleared`` and setting ``marks``."""
        gone = sorted(cleared)
        if gone:
            pipe.hdel(keys.meta(game_id), *gone)
        if marks:
            pipe.hset(keys.meta(game_id), mapping=cast(Any, dict(marks)))

    def queue_ledger(self, pipe: Pipe, game_id: str, entries: Mapping[str, int]) -> None:
        """Queue the ledger's entries, each written once (``HSETNX``)."""
        for field, amount in entries.items():
            pipe.hsetnx(keys.ledger(game_id), field, amount)

    def ledger(self, game_id: str) -> dict[str, int]:
        """The game's chip ledger: ``<version>:<seat>`` → chips won (or lost)."""
        raw = cast(dict[bytes, bytes], self._redis.hgetall(keys.ledger(game_id)))
        return {k.decode(): int(v) for k, v in raw.items()}
