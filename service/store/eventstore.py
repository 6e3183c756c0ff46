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

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final, cast

from redis.cluster import RedisCluster
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from service.engines.base import Event

from . import keys, lua
from .answers import KeptAnswers
from .append import Append, Dispatch, Projection, Record, StoredEntry
from .append import Settings as AppendSettings
from .audits import AuditRecord
from .clients import (
    Client,
    Pipe,
    block_slice_ms,
    durability,
    master_of,
    refresh_topology,
)
from .clock import ServerClock
from .creations import CreationRecords
from .entries import StreamEntries
from .errors import GameExists, GameNotFound, NotReplicated, VersionConflict
from .fairness import FairnessCounts
from .health import ServerHealth
from .hooks import HookStore
from .index import GamesIndex, GameSummary
from .lag import LagCounts
from .locks import PassLocks
from .lru import LRU
from .players import Players
from .readmodel import ReadModel
from .reads import LoadParts, RawEvent, StoredEvent, StreamReads
from .reconciler import ReconcilerState
from .rematches import RematchStore
from .removal import GameRemoval
from .seattoken import SeatTokenKey
from .seeds import SeedCipher, default_cipher, is_in_process
from .snapshots import Snapshots
from .statecache import StateCache
from .tablekeys import TableKeys
from .tails import StreamTails
from .talk import TableTalk

DEFAULT_IDEMPOTENCY_TTL_S: Final = 24 * 3600
DEFAULT_FOLLOWUP_LEASE_MS: Final = 5_000
"""How long a game's follow-up marker lives unless its job refreshes it."""
ENTRY_TIMES_KEPT: Final = 4096
BLOCK_SLICE_MS: Final = 2_000
"""The longest single blocking ``XREAD`` (shorter if the client's socket
timeout asks for it, see :func:`service.store.clients.block_slice_ms`)."""
WAIT_ATTEMPTS: Final = 4
"""Tries of an append that waits for replicas, when the cluster answers that
the slot moved or a connection broke (a failover in progress)."""


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
    (``store.lag``, :mod:`service.store.lag`; a standalone Redis), so the caller must not."""
    projected: bool = field(default=False, compare=False)
    """True when the append script projected the append itself (it was given
    a :class:`Projection` and no follow-up was pending): the snapshot is at
    ``last_version`` and no follow-up is needed."""
    drain_slot: int | None = field(default=None, compare=False)
    """When the append was given a :class:`Dispatch` and set the marker anew: the
    game is on the drains' list, and this is the slot it took (a drain job must
    be enqueued for it) or -1 (the drains running serve it). ``None``: the
    caller sees to the follow-up."""
    queued: tuple[str, ...] = field(default=(), compare=False)
    """The ids of the webhook deliveries the append queued (its
    :class:`~service.store.append.Hooks` matched a subscription)."""


class EventStore(StreamReads, Snapshots, TableKeys):
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
        self._redis = redis
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
        self._attach(redis, index_shards)
        self._append_settings = AppendSettings(
            record_ttl_ms=self.idempotency_ttl_ms,
            marker_ttl_ms=followup_lease_ms,
            counts_lag=self.counts_lag,
            projects=self.projects_appends,
            schedules_hooks=not self.cluster,
        )
        self._append = redis.register_script(lua.APPEND)
        self._stamp = redis.register_script(lua.STAMP)
        self._save_snapshot = redis.register_script(lua.SAVE_SNAPSHOT)
        self._load = redis.register_script(lua.LOAD)
        self._schema_args: list[bytes] = []
        """Pairs of game name and current state schema id, for :data:`lua.LOAD`."""
        self._games: dict[str, str] = {}
        """game id → game name: fixed by a game's first event, so safe to keep
        (forgotten all at once past
        :data:`service.store.reads.GAMES_REMEMBERED`, to bound memory)."""

    def _attach(self, redis: Client, index_shards: int) -> None:
        """The stores of the other concerns, one per key family, over ``redis``."""
        self.index = GamesIndex(redis, index_shards)
        self.creations = CreationRecords(redis, self.idempotency_ttl_ms)
        """The idempotency records of ``POST /games`` (:mod:`service.store.creations`)."""
        self.clock = ServerClock(redis)
        """Redis's time, the one clock (:mod:`service.store.clock`)."""
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
        self.tails = StreamTails(redis)
        """The stream hub's reads over many games (:mod:`service.store.tails`)."""
        self.players = Players(redis, self.seeds)
        """Player keys and their bound seats (:mod:`service.store.players`)."""
        self.reconciler = ReconcilerState(redis)
        """The reconciler's cursor and figures (:mod:`service.store.reconciler`)."""
        self.audits = AuditRecord(redis)
        """The last audit's figures (:mod:`service.store.audits`)."""
        self.answers = KeptAnswers(redis)
        """Ended games' kept answers (:mod:`service.store.answers`)."""
        self.readmodel = ReadModel(redis)
        """The turn marks and the chip ledger (:mod:`service.store.readmodel`)."""
        self.fairness = FairnessCounts(redis)
        """The fairness notes and counts (:mod:`service.store.fairness`)."""
        self.hooks = HookStore(redis)
        """Webhook subscriptions and deliveries (:mod:`service.store.hooks`)."""
        self.rematches = RematchStore(redis)
        """Rematches asked for at ended games (:mod:`service.store.rematches`)."""
        self.talk = TableTalk(redis)
        """The tables' preset messages (:mod:`service.store.talk`)."""

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
                queued=tuple(_text(i) for i in reply[7]) if len(reply) > 7 else (),
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
            node = master_of(self._redis, script_keys[0])
            pipe = node.pipeline(transaction=False)
            pipe.evalsha(self._append.sha, len(script_keys), *script_keys, *args)
            pipe.wait(self.wait_replicas, self.wait_timeout_ms)
            retry = attempt < WAIT_ATTEMPTS - 1
            try:
                reply, acked = pipe.execute(raise_on_error=False)
            except (RedisConnectionError, RedisTimeoutError):
                if not retry:
                    raise
                refresh_topology(self._redis, attempt)
                attempt += 1
                continue
            if isinstance(reply, NoScriptError) and not loaded:
                node.script_load(lua.APPEND)  # a node new to this store, or restarted
                loaded = True
                continue
            if isinstance(reply, ResponseError) and retry and _redirected(reply):
                refresh_topology(self._redis, attempt)
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
        record = _bytes(self._redis.get(keys.idem(game_id, idempotency_key)))
        return None if record is None else _parse_record(record)

    def now_ms(self, game_id: str | None = None) -> int:
        """Redis's time now, in ms: on the master of ``game_id``'s slot when
        given (the clock that stamps its events), else on any node."""
        return self.clock.now_ms(None if game_id is None else keys.events(game_id))

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


def _redirected(error: ResponseError) -> bool:
    """A cluster's answer that the slot is (being) served elsewhere: the script did not run."""
    return str(error).startswith(("MOVED", "ASK", "TRYAGAIN", "CLUSTERDOWN"))


def _text(reply: object) -> str:
    return reply.decode() if isinstance(reply, bytes) else str(reply)


def _bytes(reply: object) -> bytes | None:
    """A reply of a client that returns bytes (the store insists on one)."""
    return cast("bytes | None", reply)


def _parse_record(record: bytes) -> AppendResult:
    parts = record.decode().split(":", 2)
    return AppendResult(int(parts[0]), int(parts[1]), True, parts[2] if len(parts) == 3 else None)
