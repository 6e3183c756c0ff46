"""Reading a game's stream: its events, its last entry, and what a load folds.

Part of :class:`service.store.EventStore` (a mixin over the store's client):
reads never write, so any number may run beside the appends.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, cast

from schemas import entries as stored_form
from schemas.codec import EventDecodeError, decode_state, entry_reader, state_schema_id
from schemas.compact import expand
from service.engines.base import Event
from service.engines.registry import GAMES
from service.engines.table import GameCreated, Table

from . import keys
from .clients import Client, Pipe, run_script
from .entries import StreamEntries
from .errors import GameNotFound
from .lru import LRU
from .statecache import StateCache

GAMES_REMEMBERED: Final = 100_000
LAST_SEQ: Final = 2**64 - 1
"""The largest sequence part of a stream id: ``<v>-LAST_SEQ`` is after every entry of version v."""

Rows = list[tuple[bytes, dict[bytes, bytes]]]
"""Stream entries as redis-py returns them: ``(id, {field: value})``."""


@dataclass(frozen=True, slots=True)
class StoredEvent:
    version: int
    at_ms: int
    event: Event


@dataclass(frozen=True, slots=True)
class RawEvent:
    """A stream entry as stored, not decoded (for exports and audits);
    ``data`` is the fields' JSON (inflated if it was stored deflated; an
    entry of the second stored form as the first would hold it)."""

    version: int
    at_ms: int
    type: str
    schema_version: int
    data: bytes


@dataclass(frozen=True, slots=True)
class LoadParts:
    """What bringing a game's state up to its stream's last entry takes, read
    in one round trip by :meth:`EventStore.load_parts`: fold ``events`` onto
    ``base`` (onto nothing when ``base`` is ``None``)."""

    version: int
    """The version of the stream's last entry."""
    at_ms: int
    """The time part of that entry's id."""
    base: Table | None
    """A usable snapshot newer than the cached state, else the cached state
    handed in when ``cached``, else ``None`` (``events`` then start at the
    game's first)."""
    cached: bool
    """Whether the cached state handed in is the stream's: not past its end,
    and folded from the entry the stream holds at its version. When false a
    failover lost events it holds (or none was handed in)."""
    events: list[StoredEvent]
    """The events after ``base``, up to the stream's last."""
    token_hashes: dict[bytes, bytes] | None = None
    """``sha256(token) → seat`` of the game, when asked for."""


class StreamReads:
    """The reads of :class:`service.store.EventStore`."""

    _redis: Client
    _block_slice_ms: int
    _load: Any
    _schema_args: list[bytes]
    _games: dict[str, str]
    states: StateCache
    entries: StreamEntries
    entry_times: LRU[tuple[str, int], int]

    def version(self, game_id: str) -> int:
        """The game's version: how many events it has (0: no such game)."""
        return self._redis.xlen(keys.events(game_id))

    def last_entry(self, game_id: str) -> tuple[int, int] | None:
        """The version and time of the game's last event (``None``: no game),
        in one round trip like :meth:`version`; the pair tells that event from
        any other that might take its version (after a failover lost it)."""
        rows = cast(Rows, self._redis.xrevrange(keys.events(game_id), count=1))
        return _split_id(rows[0][0]) if rows else None

    def entry_time(self, game_id: str, version: int) -> int | None:
        """The time part of the id of the game's entry ``version`` (``None``: the
        stream has no such entry). An entry's time never changes, so it is kept
        (:attr:`entry_times`); the cached state's last entry needs no read."""
        at = self.entry_times.get((game_id, version))
        if at is not None:
            return at
        cached = self.states.entry(game_id)
        if cached is not None and cached[0].version == version and cached[1] is not None:
            at = cached[1]
        else:
            at = self.entries.entry_time(game_id, version)
            if at is None:
                return None
        self.entry_times.put((game_id, version), at)
        return at

    def load_parts(
        self,
        game_id: str,
        cached: tuple[Table, int | None] | None = None,
        *,
        tokens: bool = False,
    ) -> LoadParts:
        """Everything the fold of the game's current state needs, in one round
        trip (the :data:`lua.LOAD` script): the stream's last entry id, and the
        events missing from ``cached`` (a state of this game and the time of
        its last event's entry, if known), or a usable snapshot newer than it
        and the events after that, or else the whole stream. With ``tokens``
        the game's token hashes are read in the same script.

        A cached state past the stream's end, or whose entry at its version
        is not the one it was folded from (a failover lost it and another
        event took its version), is not built upon (``cached`` false). Raises
        :class:`GameNotFound` when the game has no events.
        """
        reply: Any = self.queue_load(game_id, cached, tokens=tokens)
        return self.parse_load(game_id, reply, cached)

    def queue_load(
        self,
        game_id: str,
        cached: tuple[Table, int | None] | None = None,
        *,
        tokens: bool = False,
        pipe: Pipe | None = None,
    ) -> Any:
        """The :data:`lua.LOAD` script of :meth:`load_parts`, run now (its raw
        reply) or queued on ``pipe`` (its reply, from the pipeline's, goes to
        :meth:`parse_load`)."""
        have = 0 if cached is None else cached[0].version
        have_at = "" if cached is None or cached[1] is None else str(cached[1])
        script_keys = [keys.events(game_id), keys.snapshot(game_id)]
        if tokens:
            script_keys.append(keys.tokens(game_id))
        return run_script(self._load, script_keys, [have, have_at, *self._schemas()], pipe)

    def parse_load(
        self, game_id: str, reply: Any, cached: tuple[Table, int | None] | None = None
    ) -> LoadParts:
        """:meth:`load_parts` from the reply of :meth:`queue_load`."""
        if not reply:
            raise GameNotFound(game_id)
        last_id, still_cached, snapshot, raw_rows, raw_tokens = reply
        rows: Rows = [(entry_id, _pairs(fields)) for entry_id, fields in raw_rows]
        version, at_ms = _split_id(last_id)
        base: Table | None
        if snapshot is not None:
            game = snapshot[1].decode()
            base = decode_state(game, snapshot[2])
        elif still_cached:
            assert cached is not None
            base = cached[0]
            game = base.kind
        else:
            base = None
            game = self._remember(game_id, rows[0][1])
        return LoadParts(
            version,
            at_ms,
            base,
            bool(still_cached),
            self._decode(game, rows) if rows else [],
            None if raw_tokens is None else _pairs(raw_tokens),
        )

    def _schemas(self) -> list[bytes]:
        if not self._schema_args:  # encoded once: every load sends them
            self._schema_args = [arg.encode() for g in GAMES for arg in (g, state_schema_id(g))]
        return self._schema_args

    def exists(self, game_id: str) -> bool:
        return self.version(game_id) > 0

    def game_of(self, game_id: str) -> str:
        """Which game (``hazari``…) ``game_id`` is; :class:`GameNotFound` if none."""
        game = self._games.get(game_id)
        if game is None:
            first = self._xrange(game_id, 0, 1)
            if not first:
                raise GameNotFound(game_id)
            game = self._remember(game_id, first[0][1])
        return game

    def read_raw(self, game_id: str, after: int = 0, limit: int | None = None) -> list[RawEvent]:
        """Stored entries with version > ``after``, oldest first, undecoded."""
        out: list[RawEvent] = []
        for entry_id, fields in self._xrange(game_id, after, limit):
            version, at_ms = _split_id(entry_id)
            packed = fields.get(stored_form.FIELD)
            if packed is not None:
                type_name, schema_version, data = stored_form.as_first_form(packed)
            else:
                type_name, schema_version = fields[b"t"].decode(), int(fields[b"v"])
                data = expand(fields[b"d"])
            out.append(RawEvent(version, at_ms, type_name, schema_version, data))
        return out

    def read(self, game_id: str, after: int = 0, limit: int | None = None) -> list[StoredEvent]:
        """Events with version > ``after``, oldest first (``[]`` if none or no game)."""
        rows = self._xrange(game_id, after, limit)
        if not rows:
            return []
        game = self._games.get(game_id)
        if game is None:
            game = self._remember(game_id, rows[0][1]) if after == 0 else self.game_of(game_id)
        return self._decode(game, rows)

    def wait(self, game_id: str, after: int, timeout_ms: int) -> list[StoredEvent]:
        """Events with version > ``after``, waiting up to ``timeout_ms`` (> 0)
        for one to be appended (``XREAD BLOCK``, in slices shorter than the
        client's socket timeout); ``[]`` on timeout."""
        found = self._block({keys.events(game_id): f"{after}-{LAST_SEQ}"}, timeout_ms)
        rows = found.get(keys.events(game_id))
        return self._decode(self.game_of(game_id), rows) if rows else []

    def _block(self, streams: dict[str, str], timeout_ms: int) -> dict[str, Rows]:
        """``XREAD BLOCK`` over ``streams`` (key → the id after which to read) for up to
        ``timeout_ms`` (> 0), in slices shorter than the client's socket timeout: the rows
        that arrived, by key (``{}`` on timeout)."""
        if timeout_ms <= 0:
            raise ValueError("timeout_ms must be positive (0 would wait forever)")
        deadline = time.monotonic() + timeout_ms / 1000
        left = timeout_ms
        while True:
            block = min(left, self._block_slice_ms)
            reply: Any = self._redis.xread(cast(Any, streams), block=block)
            if reply:
                break
            left = int((deadline - time.monotonic()) * 1000)
            if left <= 0:
                return {}
        return {
            (key.decode() if isinstance(key, bytes) else str(key)): cast(Rows, rows)
            for key, rows in reply
        }

    def decode(self, game: str, rows: Rows) -> list[StoredEvent]:
        """Entries of a ``game`` stream as ``XREAD`` returns them, decoded."""
        return self._decode(game, rows)

    def _xrange(self, game_id: str, after: int, limit: int | None) -> Rows:
        rows = self._redis.xrange(keys.events(game_id), str(after + 1), "+", count=limit)
        return cast(Rows, rows or [])

    def _decode(self, game: str, rows: Rows) -> list[StoredEvent]:
        """Each entry in one pass, in either stored form: the second
        (:mod:`schemas.entries`, one field) read by its typed fast path, the
        first (``t``, ``v``, ``d``) validated and, if older, upcast."""
        read = stored_form.reader(game)
        read_first = entry_reader(game)
        packed_field = stored_form.FIELD
        out: list[StoredEvent] = []
        append = out.append
        for entry_id, fields in rows:
            ms, _, seq = entry_id.partition(b"-")
            packed = fields.get(packed_field)
            if packed is not None:
                event = read(packed)
            else:
                event = read_first(fields[b"t"], fields[b"v"], fields[b"d"])
            append(StoredEvent(int(ms), int(seq), event))
        return out

    def _remember(self, game_id: str, first_fields: dict[bytes, bytes]) -> str:
        packed = first_fields.get(stored_form.FIELD)
        if packed is not None:
            type_name, _, data = stored_form.as_first_form(packed)
        else:
            type_name, data = first_fields[b"t"].decode(), expand(first_fields[b"d"])
        if type_name != GameCreated.type:
            raise EventDecodeError(
                "unknown", type_name, f"game {game_id!r} does not start with GameCreated"
            )
        created = json.loads(data)
        game: str = created["game"]
        if len(self._games) >= GAMES_REMEMBERED:
            self._games.clear()
        self._games[game_id] = game
        return game

    def last_event_times(self, game_ids: Sequence[str]) -> list[int | None]:
        """When each game's latest event was appended (ms since the epoch, the time part
        of its stream entry's id), in one pipeline; ``None`` for a game without a stream
        (archived out of Redis). A cluster client splits the pipeline by node."""
        if not game_ids:
            return []
        pipe = self._redis.pipeline(transaction=False)
        for game_id in game_ids:
            pipe.xrevrange(keys.events(game_id), count=1)
        return [
            keys.entry_time(rows[0][0]) if rows else None
            for rows in cast("list[list[tuple[bytes, Any]]]", pipe.execute())
        ]


def _pairs(flat: list[bytes]) -> dict[bytes, bytes]:
    """A flat ``[field, value, …]`` reply (inside a script's reply) as a dict."""
    return dict(zip(flat[::2], flat[1::2], strict=True))


def _split_id(entry_id: bytes) -> tuple[int, int]:
    ms, _, seq = entry_id.partition(b"-")
    return int(ms), int(seq)
