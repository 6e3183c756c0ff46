"""A game's snapshot: its folded state at a version, kept beside its stream.

Part of :class:`service.store.EventStore`. The snapshot hash's fields are
named once, in :mod:`service.store.readmodel`.
"""

from __future__ import annotations

from typing import Any, cast

from schemas.codec import decode_state, encode_state, state_schema_id
from service.engines.table import Table

from . import keys, readmodel
from .clients import Client, Pipe, run_script


class Snapshots:
    """The snapshot reads and writes of :class:`service.store.EventStore`."""

    _redis: Client
    _save_snapshot: Any

    def save_snapshot(self, game_id: str, state: Table) -> bool:
        """Keep ``state`` as the game's snapshot unless one at the same or a
        newer version is already kept; True if it replaced the old one."""
        return bool(self.queue_save_snapshot(game_id, state))

    def queue_save_snapshot(self, game_id: str, state: Table, pipe: Pipe | None = None) -> Any:
        """:meth:`save_snapshot` run now, or queued on ``pipe``."""
        if state.game_id != game_id:
            raise ValueError(f"state of game {state.game_id!r} saved as {game_id!r}")
        schema_id = state_schema_id(state.kind)
        args: list[Any] = [state.version, state.kind, encode_state(state), schema_id]
        return run_script(self._save_snapshot, [keys.snapshot(game_id)], args, pipe)

    def load_snapshot(self, game_id: str) -> Table | None:
        """The kept snapshot, or ``None`` if there is none or it was written
        while the engine's state had another shape (the load path then folds
        the whole stream)."""
        kept = self._redis.hmget(
            keys.snapshot(game_id), [readmodel.GAME, readmodel.SCHEMA, readmodel.STATE]
        )
        game, schema_id, data = cast(list[bytes | None], kept)
        if not _usable(game, schema_id) or game is None or data is None:
            return None
        return decode_state(game.decode(), data)

    def snapshot_version(self, game_id: str) -> int:
        """The version of the usable kept snapshot (0: none)."""
        kept = self._redis.hmget(
            keys.snapshot(game_id), [readmodel.GAME, readmodel.SCHEMA, readmodel.VERSION]
        )
        game, schema_id, version = cast(list[bytes | None], kept)
        return int(version) if version is not None and _usable(game, schema_id) else 0


def _usable(game: bytes | None, schema_id: bytes | None) -> bool:
    """Whether a kept snapshot was written with the current state schema."""
    return game is not None and schema_id == state_schema_id(game.decode()).encode()
