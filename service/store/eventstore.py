"""The event store: one Redis stream per game, appended to atomically.

Entry ``<version>-<at_ms>`` of ``cardroom:{<game_id>}:events`` holds the
game's event number ``version`` (the first is 1, the stream's length is the
game's version) appended at ``at_ms`` (Redis server time), in three compact
fields: ``t`` the type, ``v`` the schema version, ``d`` the fields as JSON
(deflated when large, see :mod:`schemas.compact`).
Encoding the version in the entry id lets a read start at any version with
one ``XRANGE`` and keeps each entry small.

An append is one Lua script: the idempotency record, the version check and
the ``XADD`` s happen atomically, so two writers that saw the same version
cannot both land; the loser gets :class:`VersionConflict`. Stored events are
never rewritten or trimmed.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final, cast

from redis.cluster import RedisCluster
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from schemas.codec import (
    EventDecodeError,
    decode_state,
    encode_state,
    entry_reader,
    state_schema_id,
)
from schemas.compact import expand
from service.engines.base import Event
from service.engines.registry import GAMES
from service.engines.table import GameCreated, Table

from . import keys, lua, readmodel
from .answers import KeptAnswers
from .append import Append, Dispatch, Projection, Record, StoredEntry
from .append import Settings as AppendSettings
from .clients import (
    Client,
    Pipe,
    block_slice_ms,
    durability,
    master_of,
    refresh_topology,
    run_script,
)
from .clock import ServerClock
from .creations import CreationRecords
from .entries import StreamEntries
from .errors import GameExists, GameNotFound, NotReplicated, VersionConflict
from .fairness import FairnessCounts
from .health import ServerHealth
from .index import GamesIndex, GameSummary
from .lag import LagCounts
from .locks import PassLocks
from .lru import LRU
from .readmodel import ReadModel
from .reconciler import ReconcilerState
from .removal import GameRemoval
from .seattoken import SeatTokenKey
from .seeds import SeedCipher, default_cipher, is_in_process, open_seed
from .statecache import StateCache

DEFAULT_IDEMPOTENCY_TTL_S: Final = 24 * 3600
DEFAULT_FOLLOWUP_LEASE_MS: Final = 5_000
"""How long a game's follow-up marker lives unless its job refreshes it."""
GAMES_REMEMBERED: Final = 100_000
ENTRY_TIMES_KEPT: Final = 4096
LAST_SEQ: Final = 2**64 - 1
"""The largest sequence part of a stream id: ``<v>-LAST_SEQ`` is after every entry of version v."""
BLOCK_SLICE_MS: Final = 2_000
"""The longest single blocking ``XREAD`` (shorter if the client's socket
timeout asks for it, see :func:`service.store.clients.block_slice_ms`)."""
WAIT_ATTEMPTS: Final = 4
"""Tries of an append that waits for replicas, when the cluster answers that
the slot moved or a connection broke (a failover in progress)."""

Rows = list[tuple[bytes, dict[bytes, bytes]]]
"""Stream entries as redis-py returns them: ``(id, {field: value})``."""

__all__ = [
    "AppendResult",
    "EventStore",
    "GameExists",
    "GameNotFound",
    "GameSummary",
    "LoadParts",
    "NotReplicated",
    "RawEvent",
    "StoredEvent",
    "VersionConflict",
]


@dataclass(frozen=True, slots=True)
class AppendResult:
    first_version: int
    last_version: int
    duplicate: bool = False
    """True when the idempotency key had been used: nothing was written."""
    response: str | None = None
    """What the first append with this key asked to keep (e.g. the HTTP body)."""
    at_ms: int | None = field(default=None, compare=False)
    """The time part of the last event's entry id (``None`` for a duplicate):
    with ``last_version`` it names the entry, so a cache can tell it from
    another event that a failover let take the same version."""
    fresh: bool = field(default=False, compare=False)
    """True when this append set the game's follow-up marker anew: no follow-up
    job was pending, so the caller must enqueue one."""
    lag_counted: bool = field(default=False, compare=False)
    """True when the append script itself counted the events as projection lag
    (``service.lag``; a standalone Redis), so the caller must not."""
    projected: bool = field(default=False, compare=False)
    """True when the append script projected the append itself (it was given
    a :class:`Projection` and no follow-up was pending): the snapshot is at
    ``last_version`` and no follow-up is needed."""
    drain_slot: int | None = field(default=None, compare=False)
    """When the append was given a :class:`Dispatch` and set the marker anew: the
    game is on the drains' list, and this is the slot it took (a drain job must
    be enqueued for it) or -1 (the drains running serve it). ``None``: the
    caller sees to the follow-up."""


@dataclass(frozen=True, slots=True)
class StoredEvent:
    version: int
    at_ms: int
    event: Event


@dataclass(frozen=True, slots=True)
class RawEvent:
    """A stream entry as stored, not decoded (for exports and audits);
    ``data`` is the fields' JSON (inflated if it was stored deflated)."""

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


class EventStore:
    """Events, snapshots, seeds, seat tokens, the games index and the creation
    keys of cardroom.

    ``redis`` must return bytes (``decode_responses=False``, the default); it
    may be a ``RedisCluster``: every command and script touches one game's
    slot (or one index shard's), never several.

    ``wait_replicas`` > 0 makes each append wait (Redis ``WAIT``, up to
    ``wait_timeout_ms``) until that many replicas of the game's master hold
    it, so that a failover cannot lose an acknowledged event; an append not
    confirmed in time raises :class:`NotReplicated`. Left unset, both come
    from the client (:func:`service.store.clients.require_replicas`).
    """

    def __init__(
        self,
        redis: Client,
        *,
        idempotency_ttl_s: int = DEFAULT_IDEMPOTENCY_TTL_S,
        index_shards: int = keys.INDEX_SHARDS,
        wait_replicas: int | None = None,
        wait_timeout_ms: int | None = None,
        followup_lease_ms: int = DEFAULT_FOLLOWUP_LEASE_MS,
        seeds: SeedCipher | None = None,
        states: StateCache | None = None,
    ) -> None:
        if redis.get_encoder().decode_responses:
            raise ValueError("EventStore needs a Redis client with decode_responses=False")
        required = durability(redis)
        self._block_slice_ms = block_slice_ms(redis, BLOCK_SLICE_MS)
        self.wait_replicas = required.replicas if wait_replicas is None else wait_replicas
        self.wait_timeout_ms = required.timeout_ms if wait_timeout_ms is None else wait_timeout_ms
        if self.wait_replicas < 0 or self.wait_timeout_ms <= 0:
            raise ValueError("wait_replicas must be >= 0 and wait_timeout_ms > 0")
        self.redis = redis
        self.seeds = seeds if seeds is not None else default_cipher(is_in_process(redis))
        """Seals server seeds at rest (``None``: in the clear); see :mod:`service.store.seeds`."""
        self.states = states if states is not None else StateCache()
        self.entry_times: LRU[tuple[str, int], int] = LRU(ENTRY_TIMES_KEPT)
        """``(game_id, version) → at_ms`` of entries looked up (:meth:`entry_time`)."""
        """The folded states this store's loads and appends keep (:mod:`service.store.load`)."""
        self.idempotency_ttl_ms = idempotency_ttl_s * 1000
        self.followup_lease_ms = followup_lease_ms
        self.cluster = isinstance(redis, RedisCluster)
        self.counts_lag = not self.cluster
        """Appends count their events as projection lag in the same script: on a
        standalone Redis only (the lag keys are not in a game's slot)."""
        self.projects_appends = not self.cluster
        """Appends may project themselves (:class:`Projection`): on a standalone
        Redis only (the timers index is not in a game's slot)."""
        self.index = GamesIndex(redis, index_shards)
        self.creations = CreationRecords(redis, self.idempotency_ttl_ms)
        """The idempotency records of ``POST /games`` (:mod:`service.store.creations`)."""
        self.clock = ServerClock(redis)
        """Redis's time, the one clock (:mod:`service.store.clock`)."""
        self._append_settings = AppendSettings(
            record_ttl_ms=self.idempotency_ttl_ms,
            marker_ttl_ms=followup_lease_ms,
            counts_lag=self.counts_lag,
            projects=self.projects_appends,
        )
        self.lag = LagCounts(redis)
        """The projection-lag counts (:mod:`service.store.lag`)."""
        self.entries = StreamEntries(redis)
        """Single stream entries' ids and times (:mod:`service.store.entries`)."""
        self.seat_token_key = SeatTokenKey(redis)
        """Called: the seat tokens' server key (:mod:`service.store.seattoken`)."""
        self.health = ServerHealth(redis)
        """Ping, the ready probe, memory (:mod:`service.store.health`)."""
        self.locks = PassLocks(redis)
        """The periodic passes' locks (:mod:`service.store.locks`)."""
        self.removal = GameRemoval(redis)
        """Deleting and expiring games (:mod:`service.store.removal`)."""
        self.reconciler = ReconcilerState(redis)
        """The reconciler's cursor and figures (:mod:`service.store.reconciler`)."""
        self.answers = KeptAnswers(redis)
        """Ended games' kept answers (:mod:`service.store.answers`)."""
        self.readmodel = ReadModel(redis)
        """The turn marks and the chip ledger (:mod:`service.store.readmodel`)."""
        self.fairness = FairnessCounts(redis)
        """The fairness notes and counts (:mod:`service.store.fairness`)."""
        self._append = redis.register_script(lua.APPEND)
        self._stamp = redis.register_script(lua.STAMP)
        self._save_snapshot = redis.register_script(lua.SAVE_SNAPSHOT)
        self._load = redis.register_script(lua.LOAD)
        self._schema_args: list[bytes] = []
        """Pairs of game name and current state schema id, for :data:`lua.LOAD`."""
        self._games: dict[str, str] = {}
        """game id → game name: fixed by a game's first event, so safe to keep
        (forgotten all at once past ``GAMES_REMEMBERED``, to bound memory)."""

    # -- events ------------------------------------------------------------
    def append(
        self,
        game_id: str,
        events: Sequence[Event],
        expected_version: int,
        *,
        idempotency_key: str | None = None,
        response: str | None = None,
        dispatch: Dispatch | None = None,
        last_entry: str | None = None,
        projection: Projection | None = None,
    ) -> AppendResult:
        """:meth:`write` of an :class:`~service.store.append.Append` of ``events``
        after version ``expected_version``, its other parts by name."""
        record = None if idempotency_key is None else Record(idempotency_key, response)
        return self.write(
            Append(
                game_id,
                expected_version,
                events=events,
                record=record,
                last_entry=last_entry,
                projection=projection,
                dispatch=dispatch,
            )
        )

    def append_stored(
        self, game_id: str, entries: Sequence[StoredEntry], expected_version: int
    ) -> AppendResult:
        """Append entries already in stored form, ``(type, schema_version,
        data, at_ms)``, keeping their time: for imports, which validate them."""
        return self.write(Append(game_id, expected_version, entries=entries))

    def write(self, append: Append) -> AppendResult:
        """Append ``append.events`` after version ``append.expected_version`` (the
        version the caller's decision was based on; 0 creates the game).

        Raises :class:`VersionConflict` when the stream is elsewhere. With a
        record whose key was already used for this game, writes nothing and
        returns the first append's result (``duplicate=True``) and response.
        With a dispatch, an append that sets the game's follow-up marker anew
        also puts the game on the drains' list (see :attr:`AppendResult.drain_slot`).
        ``last_entry``: the id (``<version>-<ms>``) of the entry the caller's
        state ends with, when that state was not read from the stream just now
        (a cached one): the append is then also refused as a
        :class:`VersionConflict` if the stream ends with another entry of that
        version (a failover lost the one the state holds).

        With a projection (the state the events fold to, and what a follow-up
        would make of them), an append finding no follow-up pending and the
        snapshot at ``expected_version`` projects itself in the same script:
        it writes the snapshot and the turn marks, sets the game's timer and
        leaves the marker alone (:attr:`AppendResult.projected`: no follow-up
        to start). Otherwise it is appended as without.
        """
        script_keys, args = append.script(self._append_settings)
        counted = append.counted(self._append_settings)
        game_id, expected_version = append.game_id, append.expected_version
        if self.wait_replicas:
            reply, acked = self._append_and_wait(script_keys, args)
        else:
            reply, acked = self._append(keys=script_keys, args=args), 0
        if reply[0] == 0:
            raise VersionConflict(game_id, expected_version, int(reply[1]))
        if reply[0] == 2:
            result = _parse_record(reply[1])
        else:
            result = AppendResult(
                int(reply[1]),
                int(reply[2]),
                at_ms=int(reply[3]),
                fresh=reply[4] == 1,
                lag_counted=counted,
                projected=reply[6] == 1,
                drain_slot=int(reply[5]) if int(reply[5]) > -2 else None,
            )
        if acked < self.wait_replicas:
            raise NotReplicated(
                game_id, result.first_version, result.last_version, acked, self.wait_replicas
            )
        return result

    def _append_and_wait(self, script_keys: list[str], args: list[Any]) -> tuple[Any, int]:
        """The append script's reply and how many replicas acknowledged it.

        ``WAIT`` counts the writes of the connection it is sent on, so the
        script and the ``WAIT`` go down one connection to the game's master,
        pipelined (one round trip). Replication keeps order, so a replica that
        has this append also has every earlier write of that master (the
        game's seed, tokens, earlier events).

        A redirect or a broken connection (a failover in progress) is retried
        against the refreshed topology. Running the script again is safe: the
        expected version (and the idempotency key, if any) stop a second landing,
        so a retry of an append that did land reports a conflict (or, with a
        key, the first result), never a duplicate.
        """
        attempt = 0
        loaded = False
        while True:
            node = master_of(self.redis, script_keys[0])
            pipe = node.pipeline(transaction=False)
            pipe.evalsha(self._append.sha, len(script_keys), *script_keys, *args)
            pipe.wait(self.wait_replicas, self.wait_timeout_ms)
            retry = attempt < WAIT_ATTEMPTS - 1
            try:
                reply, acked = pipe.execute(raise_on_error=False)
            except (RedisConnectionError, RedisTimeoutError):
                if not retry:
                    raise
                refresh_topology(self.redis, attempt)
                attempt += 1
                continue
            if isinstance(reply, NoScriptError) and not loaded:
                node.script_load(lua.APPEND)  # a node new to this store, or restarted
                loaded = True
                continue
            if isinstance(reply, ResponseError) and retry and _redirected(reply):
                refresh_topology(self.redis, attempt)
                attempt += 1
                loaded = False  # the slot's next master may lack the script too
                continue
            if isinstance(reply, Exception):
                raise reply
            if isinstance(acked, Exception):
                raise acked
            return reply, int(acked)

    def idempotent_result(self, game_id: str, idempotency_key: str) -> AppendResult | None:
        """The result of an earlier append with this key, if it has not expired.

        Lets a caller answer a retried request before deciding again on a
        state the first attempt already changed.
        """
        record = _bytes(self.redis.get(keys.idem(game_id, idempotency_key)))
        return None if record is None else _parse_record(record)

    def now_ms(self, game_id: str | None = None) -> int:
        """Redis's time now, in ms: on the master of ``game_id``'s slot when
        given (the clock that stamps its events), else on any node."""
        return self.clock.now_ms(None if game_id is None else keys.events(game_id))

    def stamp(self, game_id: str, field: str) -> int:
        """Set ``field`` of the game's meta hash to Redis's time now (ms); that time."""
        return int(self._stamp(keys=[keys.meta(game_id)], args=[field]))

    def version(self, game_id: str) -> int:
        """The game's version: how many events it has (0: no such game)."""
        return self.redis.xlen(keys.events(game_id))

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

    def last_entry(self, game_id: str) -> tuple[int, int] | None:
        """The version and time of the game's last event (``None``: no game),
        in one round trip like :meth:`version`; the pair tells that event from
        any other that might take its version (after a failover lost it)."""
        rows = cast(Rows, self.redis.xrevrange(keys.events(game_id), count=1))
        return _split_id(rows[0][0]) if rows else None

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
            data = expand(fields[b"d"])
            out.append(RawEvent(version, at_ms, fields[b"t"].decode(), int(fields[b"v"]), data))
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
        if timeout_ms <= 0:
            raise ValueError("timeout_ms must be positive (0 would wait forever)")
        key = keys.events(game_id)
        deadline = time.monotonic() + timeout_ms / 1000
        left = timeout_ms
        while True:
            block = min(left, self._block_slice_ms)
            reply: Any = self.redis.xread({key: f"{after}-{LAST_SEQ}"}, block=block)
            if reply:
                break
            left = int((deadline - time.monotonic()) * 1000)
            if left <= 0:
                return []
        rows = cast(Rows, reply[0][1])
        return self._decode(self.game_of(game_id), rows)

    def _xrange(self, game_id: str, after: int, limit: int | None) -> Rows:
        rows = self.redis.xrange(keys.events(game_id), str(after + 1), "+", count=limit)
        return cast(Rows, rows or [])

    def _decode(self, game: str, rows: Rows) -> list[StoredEvent]:
        read = entry_reader(game)
        out: list[StoredEvent] = []
        append = out.append
        for entry_id, fields in rows:
            ms, _, seq = entry_id.partition(b"-")
            append(StoredEvent(int(ms), int(seq), read(fields[b"t"], fields[b"v"], fields[b"d"])))
        return out

    def _remember(self, game_id: str, first_fields: dict[bytes, bytes]) -> str:
        if first_fields[b"t"] != GameCreated.type.encode():
            raise EventDecodeError(
                "unknown", first_fields[b"t"], f"game {game_id!r} does not start with GameCreated"
            )
        created = json.loads(expand(first_fields[b"d"]))
        game: str = created["game"]
        if len(self._games) >= GAMES_REMEMBERED:
            self._games.clear()
        self._games[game_id] = game
        return game

    # -- snapshots ----------------------------------------------------------
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
        kept = self.redis.hmget(
            keys.snapshot(game_id), [readmodel.GAME, readmodel.SCHEMA, readmodel.STATE]
        )
        game, schema_id, data = cast(list[bytes | None], kept)
        if not _usable(game, schema_id) or game is None or data is None:
            return None
        return decode_state(game.decode(), data)

    def snapshot_version(self, game_id: str) -> int:
        """The version of the usable kept snapshot (0: none)."""
        kept = self.redis.hmget(
            keys.snapshot(game_id), [readmodel.GAME, readmodel.SCHEMA, readmodel.VERSION]
        )
        game, schema_id, version = cast(list[bytes | None], kept)
        return int(version) if version is not None and _usable(game, schema_id) else 0

    # -- the server seed and seat tokens ----------------------------------------
    def put_secret(self, game_id: str, seed: bytes, pipe: Pipe | None = None) -> None:
        """Keep the game's server seed; an existing seed is never replaced
        (its commitment is already public). Sealed with :attr:`seeds`, if set."""
        stored = seed if self.seeds is None else self.seeds.seal(game_id, seed)
        (pipe or self.redis).set(keys.secret(game_id), stored, nx=True)

    def get_secret(self, game_id: str) -> bytes | None:
        stored = _bytes(self.redis.get(keys.secret(game_id)))
        return None if stored is None else open_seed(game_id, stored, self.seeds)

    def put_token(self, game_id: str, seat: int, token_hash: str, pipe: Pipe | None = None) -> None:
        """Remember which seat a token belongs to, by the token's hash only."""
        (pipe or self.redis).hset(keys.tokens(game_id), token_hash, seat)

    def token_hashes(self, game_id: str) -> dict[bytes, bytes]:
        """``sha256(token) → seat`` of every seat given a token (``{}``: none, or no game)."""
        return cast("dict[bytes, bytes]", self.redis.hgetall(keys.tokens(game_id)))

    def delete_secret(self, game_id: str) -> None:
        """Forget the game's server seed (once an event has revealed it)."""
        self.redis.delete(keys.secret(game_id))

    # -- activity ---------------------------------------------------------------
    def note_activity(self, game_id: str, at_ms: int | None = None) -> None:
        """Note that a person acted at the table at ``at_ms`` (Redis's time now
        when ``None``), in the game's meta hash."""
        if at_ms is None:
            self.stamp(game_id, keys.ACTIVE_FIELD)
        else:
            self.redis.hset(keys.meta(game_id), keys.ACTIVE_FIELD, at_ms)

    def last_activity(self, game_id: str) -> int | None:
        """When anything last happened at the table (ms): the later of its last
        event's entry and the last noted activity; ``None`` when it has no events."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.hget(keys.meta(game_id), keys.ACTIVE_FIELD)
        pipe.xrevrange(keys.events(game_id), count=1)
        active, last = pipe.execute()
        if not last:
            return None
        return max(int(active or 0), _split_id(last[0][0])[1])

    def seat_for_token_hash(self, game_id: str, token_hash: str) -> int | None:
        raw = _bytes(self.redis.hget(keys.tokens(game_id), token_hash))
        return None if raw is None else int(raw)

    # -- the games index ----------------------------------------------------------
    def index_game(
        self, game_id: str, game: str, status: str, created_at: int, pipe: Pipe | None = None
    ) -> None:
        """Add a game to the index (``created_at``: ms since the epoch)."""
        self.index.index_game(game_id, game, status, created_at, pipe)

    def set_status(self, game_id: str, status: str) -> None:
        self.index.set_status(game_id, status)

    def list_games(
        self,
        game: str | None = None,
        status: str | None = None,
        limit: int = 20,
        cursor: str | None = None,
    ) -> tuple[list[GameSummary], str | None]:
        """A page of indexed games, newest first, and the next page's cursor."""
        return self.index.list_games(game, status, limit, cursor)

    def last_event_times(self, game_ids: Sequence[str]) -> list[int | None]:
        """When each game's latest event was appended (ms since the epoch, the time part
        of its stream entry's id), in one pipeline; ``None`` for a game without a stream
        (archived out of Redis). A cluster client splits the pipeline by node."""
        if not game_ids:
            return []
        pipe = self.redis.pipeline(transaction=False)
        for game_id in game_ids:
            pipe.xrevrange(keys.events(game_id), count=1)
        return [
            keys.entry_time(rows[0][0]) if rows else None
            for rows in cast("list[list[tuple[bytes, Any]]]", pipe.execute())
        ]


def _redirected(error: ResponseError) -> bool:
    """A cluster's answer that the slot is (being) served elsewhere: the script did not run."""
    return str(error).startswith(("MOVED", "ASK", "TRYAGAIN", "CLUSTERDOWN"))


def _bytes(reply: object) -> bytes | None:
    """A reply of a client that returns bytes (the store insists on one)."""
    return cast("bytes | None", reply)


def _usable(game: bytes | None, schema_id: bytes | None) -> bool:
    """Whether a kept snapshot was written with the current state schema."""
    return game is not None and schema_id == state_schema_id(game.decode()).encode()


def _pairs(flat: list[bytes]) -> dict[bytes, bytes]:
    """A flat ``[field, value, …]`` reply (inside a script's reply) as a dict."""
    return dict(zip(flat[::2], flat[1::2], strict=True))


def _split_id(entry_id: bytes) -> tuple[int, int]:
    ms, _, seq = entry_id.partition(b"-")
    return int(ms), int(seq)


def _parse_record(record: bytes) -> AppendResult:
    parts = record.decode().split(":", 2)
    return AppendResult(int(parts[0]), int(parts[1]), True, parts[2] if len(parts) == 3 else None)
