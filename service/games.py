"""The application service: tables, seats, moves and system steps over the event store.

Every command follows one shape: load the game (snapshot + tail), let the
table fold and the engine decide, append the events with the version the
decision was based on, then ask the workers to take it from there (unless
the fold was all that was left to do: then the append projects itself, see
:meth:`GameService._projection`). The
append is the only write that matters and it is atomic, so a rejected
command changes nothing and two racing commands cannot both land.

Secrets live outside the stream: the server seed in the store until the
game reveals it, seat tokens only as their SHA-256. The HTTP layer calls
:meth:`GameService.authenticate` and the seat-level commands; the workers
call :meth:`GameService.advance` and :meth:`GameService.play_as`.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any, Final

import orjson

from schemas.codec import encode_event
from schemas.moves import parse_move
from service import lag
from service.engines import table
from service.engines.base import JSON, Event, Move
from service.engines.shuffle import commitment, new_client_seed, new_server_seed
from service.idempotency import IdempotencyKeyInUse, IdempotencyKeyReused, request_fingerprint
from service.metrics import APPEND_SECONDS
from service.runtime import Runtime
from service.seattokens import derive_token, server_key
from service.store import (
    DEFAULT_CACHE,
    AppendResult,
    Dispatch,
    EventStore,
    GameNotFound,
    Projection,
    StoredEvent,
    VersionConflict,
    clock,
    keys,
    load_game,
    load_game_and_tokens,
)
from service.store.creations import LEGACY, CreationRecord, Reservation

log = logging.getLogger("cardroom.games")

CONFLICT_RETRIES: Final = 5
"""How often a command without an expected version is re-decided after losing a race."""
MAX_STEPS: Final = 64
"""System steps one :meth:`GameService.advance` call takes at most (a guard, never reached)."""
TOKEN_BYTES: Final = 32
SEAT_IDEMPOTENCY: Final = "seat:"
"""Prefix of a seat request's idempotency key in the store (moves use the bare key)."""
CREATION_WAIT_S: Final = 1.0
"""How long a repeated ``POST /games`` waits for its first request to open the table."""
CREATION_POLL_S: Final = 0.02
CREATION_RETRY_AFTER_S: Final = 1
"""The ``Retry-After`` of a repeat that waited in vain (the first request is still at it)."""
ACTIVE_FIELD: Final = "active_ms"
"""Field of the game's meta hash: when a person last acted at the table (ms)."""
ABANDONED_IDLE: Final = "idle"
"""The reason of a :class:`~service.engines.table.GameAbandoned` nobody acted for."""


class Unauthenticated(Exception):
    """No seat token where one is required."""


class Forbidden(Exception):
    """A seat token that opens no seat of this game (unknown, or another game's)."""


class MissingSecret(RuntimeError):
    """A game whose server seed is gone: it can deal no more (an operator's problem)."""


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


@dataclass(frozen=True, slots=True)
class MoveResult:
    body: JSON
    """``{"version", "first_version", "events"}`` as the moving seat may see them."""
    replayed: bool = False
    """True when an idempotent retry was answered from the first attempt's record."""
    text: str | None = None
    """``body`` as compact JSON, when it was already encoded."""


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def event_json(version: int, event: Event, at_ms: int | None = None) -> JSON:
    """An event as the API shows it: its version (and time), type, schema version, fields."""
    out: JSON = {"version": version}
    if at_ms is not None:
        out["at_ms"] = at_ms
    out.update(encode_event(event))
    return out


def _match_token(stored: Mapping[Any, Any], token: str) -> int | None:
    """The seat whose stored hash is the token's, comparing every one in constant time."""
    digest = hash_token(token).encode()
    seat: int | None = None
    for token_hash, raw_seat in stored.items():
        if hmac.compare_digest(token_hash, digest):
            seat = int(raw_seat)
    return seat


def _seat_fingerprint(name: str, client_seed: str | None, bot: bool) -> str:
    return request_fingerprint({"name": name, "client_seed": client_seed, "bot": bot})


def _fingerprint(seat: int, move: object, expected_version: int | None) -> str:
    """What makes two moves "the same" for an idempotency key."""
    return request_fingerprint({"seat": seat, "move": move, "expected_version": expected_version})


def _creation_fingerprint(game: str, options: Mapping[str, Any] | None, seats: int | None) -> str:
    """What makes two ``POST /games`` "the same": the body but for its key."""
    return request_fingerprint({"game": game, "options": dict(options or {}), "seats": seats})


def seat_scoped_key(seat: int, idempotency_key: str) -> str:
    """A client's idempotency key as stored: scoped to the seat that sent it,
    so the same key chosen by two seats of a game names two requests."""
    return f"seat:{seat}:{idempotency_key}"


Followup = Callable[[str, int], None]
StartDrain = Callable[[int, str], None]
"""``start_drain(slot, token)``: enqueue the drain job of a slot an append took."""


class TokenHashes:
    """The seats' token hashes of up to ``maxsize`` games, as their latest load
    read them, least recently used dropped first; thread-safe. A hash once
    stored stays as long as its game (seats are never given new tokens), so
    a hash found here opens its seat even if more seats were taken since."""

    def __init__(self, maxsize: int = 1024) -> None:
        self.maxsize = maxsize
        self._hashes: OrderedDict[str, Mapping[Any, Any]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, game_id: str) -> Mapping[Any, Any] | None:
        with self._lock:
            return self._hashes.get(game_id)

    def put(self, game_id: str, hashes: Mapping[Any, Any]) -> None:
        with self._lock:
            self._hashes[game_id] = hashes
            self._hashes.move_to_end(game_id)
            while len(self._hashes) > self.maxsize:
                self._hashes.popitem(last=False)


KNOWN_TOKENS: Final = TokenHashes()


def new_game_id() -> str:
    """96 random bits, URL-safe, never starting with ``-``: a command line
    (``cardroom replay <id>``) would take such an id for an option."""
    while True:
        game_id = secrets.token_urlsafe(12)
        if not game_id.startswith("-"):
            return game_id


class GameService:
    """Commands and queries of cardroom's games; one per process, thread-safe.

    ``followup(game_id, version)`` is called after an append that set its
    game's follow-up marker anew, unless the append script put the game on the
    drains' list itself (:meth:`service.runtime.Runtime.append_dispatch`);
    ``start_drain(slot, token)`` when that script took a free drain slot. Both
    default to enqueueing at once; the HTTP layer passes ones that enqueue
    once the answer has gone out, to keep them off a move's latency.
    """

    def __init__(
        self,
        runtime: Runtime,
        store: EventStore,
        followup: Followup | None = None,
        start_drain: StartDrain | None = None,
    ) -> None:
        self.runtime = runtime
        self.store = store
        self.followup: Followup = followup or runtime.enqueue_followup
        self.start_drain: StartDrain = start_drain or runtime.enqueue_drain
        self.creation_wait_s = CREATION_WAIT_S

    # -- queries -------------------------------------------------------------
    def load(self, game_id: str) -> table.Table:
        """The current state; :class:`GameNotFound` for an unknown (or malformed) id."""
        if not keys.GAME_ID_RE.fullmatch(game_id):
            raise GameNotFound(game_id)
        return load_game(self.store, game_id)

    def events(
        self,
        game_id: str,
        after: int = 0,
        limit: int | None = None,
        state: table.Table | None = None,
    ) -> tuple[table.Table, list[StoredEvent]]:
        """The state (``state`` if given, else loaded now) and the stored events after
        ``after``, never past the state's version (so redacting them against that
        state is consistent)."""
        state = state if state is not None else self.load(game_id)
        span = max(state.version - after, 0)
        if limit is not None:
            span = min(span, limit)
        stored = self.store.read(game_id, after, span) if span else []
        return state, stored

    def list_games(
        self, game: str | None, status: str | None, limit: int, cursor: str | None
    ) -> tuple[list[JSON], str | None]:
        """A page of the games index, newest first, and the next page's cursor; each
        game with the time of its latest event (``last_event_at``)."""
        items, next_cursor = self.store.list_games(game, status, limit, cursor)
        times = self.store.last_event_times([item.game_id for item in items])
        return [
            {**asdict(item), "last_event_at": at} for item, at in zip(items, times, strict=True)
        ], next_cursor

    def seat_for_move(self, game_id: str, token: str | None) -> tuple[int, table.Table, str | None]:
        """The seat ``token`` opens and the state to decide its move on, with no
        round trip when this process has the game cached: the state kept by
        its last load or append, and the token among the seats' hashes its
        last load read (a seat's token is never replaced while its game
        lives). The third value is then the id of the cached state's last
        entry, for :meth:`submit_move` (the append checks the stream still
        ends there, and a cached state that turns out stale is looked at no
        further). Otherwise :meth:`seat_and_state`, and ``None``."""
        if token is None:
            raise Unauthenticated()
        cached = DEFAULT_CACHE.entry(game_id)
        hashes = KNOWN_TOKENS.get(game_id)
        if cached is not None and hashes is not None:
            state, at_ms = cached
            seat = _match_token(hashes, token)
            if seat is not None and at_ms is not None and not state.over:
                return seat, state, f"{state.version}-{at_ms}"
        seat, state = self.seat_and_state(game_id, token)
        return seat, state, None

    def seat_and_state(self, game_id: str, token: str | None) -> tuple[int, table.Table]:
        """:meth:`authenticate` (a token is required) and :meth:`load` in one round
        trip to Redis: the token hashes are read by the same script as the state."""
        if token is None:
            raise Unauthenticated()
        if not keys.GAME_ID_RE.fullmatch(game_id):
            raise GameNotFound(game_id)
        state, hashes = load_game_and_tokens(self.store, game_id)
        KNOWN_TOKENS.put(game_id, hashes)
        seat = _match_token(hashes, token)
        if seat is None:
            raise Forbidden()
        return seat, state

    def authenticate(self, game_id: str, token: str | None, *, required: bool) -> int | None:
        """The seat ``token`` opens in ``game_id``.

        ``None`` when no token was sent and none is required. The token's hash
        is compared with every seat's in constant time, so neither timing nor
        the answer tells an unknown token from another game's.
        """
        if token is None:
            if required:
                raise Unauthenticated()
            return None
        stored: Mapping[Any, Any] = self.store.redis.hgetall(keys.tokens(game_id))
        seat = _match_token(stored, token)
        if seat is None:
            if not stored:
                self.load(game_id)  # an unknown game is a 404, not a 403
            raise Forbidden()
        return seat

    # -- commands --------------------------------------------------------------
    def create_game(
        self, game: str, options: Mapping[str, Any] | None = None, seats: int | None = None
    ) -> table.Table:
        """A new table, seating; its seed is drawn and kept, its commitment published."""
        return self._open(*self._draft(game, options, seats))

    def open_table(
        self,
        game: str,
        options: Mapping[str, Any] | None,
        seats: int | None,
        idempotency_key: str | None,
        scope: str,
    ) -> Creation:
        """:meth:`create_game`, retry-safe with ``idempotency_key``.

        The key belongs to ``scope`` (:func:`service.idempotency.creation_scope`)
        and is reserved before anything is written, so the same request sent
        any number of times, at once or one after another, opens one table and
        every repeat answers with it (``replayed``). The key sent with another
        body is :class:`IdempotencyKeyReused`; while the request holding it is
        still opening its table, a repeat waits up to :attr:`creation_wait_s`
        for it, then is :class:`IdempotencyKeyInUse`. A body the game refuses
        is refused before the key is looked at, and reserves nothing. A key
        whose table is gone (dropped unjoined) opens a new one.
        """
        seed, events = self._draft(game, options, seats)
        if idempotency_key is None:
            return Creation(self._open(seed, events))
        fingerprint = _creation_fingerprint(game, options, seats)
        found = self._claim_creation(keys.creation(scope, idempotency_key), fingerprint)
        if not isinstance(found, Reservation):
            return Creation(found, replayed=True)
        try:
            state = self._open(seed, events)
        except BaseException:
            self._settle_creation(found, None)  # nothing opened: the key is free again
            raise
        self._settle_creation(found, state.game_id)
        return Creation(state)

    def _draft(
        self, game: str, options: Mapping[str, Any] | None, seats: int | None
    ) -> tuple[bytes, list[Event]]:
        """A new table's server seed and first event, checked by the game (a bad
        option or seat count raises here); nothing is written."""
        seed = new_server_seed()
        return seed, table.create(new_game_id(), game, options, seats, commitment(seed))

    def _open(self, seed: bytes, events: list[Event]) -> table.Table:
        """Write a drafted table: its seed, its first event, its index entry."""
        while True:
            created = events[0]
            assert isinstance(created, table.GameCreated)
            self.store.put_secret(created.game_id, seed)
            dispatch = self.runtime.append_dispatch()
            try:
                result = self.store.append(created.game_id, events, 0, dispatch=dispatch)
            except VersionConflict:  # 96 random bits collided: draw another id
                events = [replace(created, game_id=new_game_id()), *events[1:]]
                continue
            break
        game_id = created.game_id
        created_ms = result.at_ms or self.store.now_ms(game_id)  # Redis's time
        self.store.index_game(game_id, created.game, "seating", created_ms)
        self._touch(game_id, created_ms)
        state = table.fold(events)
        self._after_append(None, state, result, dispatch)
        return state

    def _claim_creation(self, record_key: str, fingerprint: str) -> Reservation | table.Table:
        """The key reserved for this request, or the table an earlier request
        with it opened. A record naming a table that is gone (dropped unjoined,
        see :mod:`service.retention`) is forgotten: the key is free again."""
        while True:
            found = self._reserve_creation(record_key, fingerprint)
            if isinstance(found, Reservation):
                return found
            assert found.game_id is not None
            try:
                return self.load(found.game_id)
            except GameNotFound:
                self.store.creations.forget(record_key, found)

    def _reserve_creation(self, record_key: str, fingerprint: str) -> Reservation | CreationRecord:
        """The key reserved for this request, or the record of the game an
        earlier request with the same body opened (waiting a little while it
        is opening it)."""
        deadline = time.monotonic() + self.creation_wait_s
        while True:
            found = self.store.creations.reserve(record_key, fingerprint)
            if isinstance(found, Reservation):
                return found
            if found.fingerprint not in (fingerprint, LEGACY):
                raise IdempotencyKeyReused()
            if found.game_id is not None:
                return found
            if time.monotonic() >= deadline:
                raise IdempotencyKeyInUse(CREATION_RETRY_AFTER_S)
            time.sleep(CREATION_POLL_S)

    def _settle_creation(self, reservation: Reservation, game_id: str | None) -> None:
        """Name the opened table in the key's record (or free the key). A failure
        is logged, not raised: the table stands (or the request's own error
        is the answer), and a pending record expires by itself."""
        try:
            settled = self.store.creations.settle(reservation, game_id)
        except Exception:
            log.exception("could not settle the idempotency record of a new table")
            return
        if not settled:
            log.warning(
                "a creation's idempotency record was pending past %s ms",
                self.store.creations.pending_ms,
                extra={"game_id": game_id},
            )

    def take_seat(
        self,
        game_id: str,
        name: str,
        client_seed: str | None = None,
        bot: bool = False,
        idempotency_key: str | None = None,
    ) -> SeatGrant:
        """The next free seat. When it is the last one, the first deal follows at once.

        With ``idempotency_key`` a retry of the same request gets the same seat
        and the same token (derived, see :mod:`service.seattokens`); the key
        sent with a different request is :class:`IdempotencyKeyReused`.
        """
        fingerprint = _seat_fingerprint(name, client_seed, bot)
        stored_key = None if idempotency_key is None else SEAT_IDEMPOTENCY + idempotency_key
        if stored_key is not None and idempotency_key is not None:
            earlier = self.store.idempotent_result(game_id, stored_key)
            if earlier is not None:
                return self._seat_again(game_id, idempotency_key, earlier, fingerprint)
        seed = client_seed if client_seed is not None else new_client_seed()

        def decide(state: table.Table) -> list[Event]:
            return table.take_seat(state, name, seed, bot)

        def respond(new_state: table.Table, events: Sequence[Event]) -> str:
            taken = events[0]
            assert isinstance(taken, table.SeatTaken)
            record = {"seat": taken.seat, "name": taken.name, "client_seed": taken.client_seed}
            return json.dumps({"fp": fingerprint, "seat": record}, separators=(",", ":"))

        try:
            state, events, result = self._commit(game_id, decide, None, stored_key, respond)
        except VersionConflict:
            earlier = self.store.idempotent_result(game_id, stored_key) if stored_key else None
            if earlier is None or idempotency_key is None:
                raise
            return self._seat_again(game_id, idempotency_key, earlier, fingerprint)
        if result.duplicate and idempotency_key is not None:
            return self._seat_again(game_id, idempotency_key, result, fingerprint)
        taken = events[0]
        assert isinstance(taken, table.SeatTaken)
        token = self._seat_token(game_id, taken.seat, bot, idempotency_key)
        if not bot:
            self._touch(game_id)
        if state.seated:
            self.advance(game_id)
        return SeatGrant(taken.seat, taken.name, taken.bot, taken.client_seed, token, state)

    def _seat_token(
        self, game_id: str, seat: int, bot: bool, idempotency_key: str | None
    ) -> str | None:
        """A new seat's token (``None`` for a bot), its hash stored for authentication."""
        if bot:
            return None
        if idempotency_key is None:
            token = secrets.token_urlsafe(TOKEN_BYTES)
        else:
            token = derive_token(server_key(self.store.redis), game_id, seat, idempotency_key)
        self.store.put_token(game_id, seat, hash_token(token))
        return token

    def _seat_again(
        self, game_id: str, idempotency_key: str, earlier: AppendResult, fingerprint: str
    ) -> SeatGrant:
        """The answer to a retried seat request: the same seat and token."""
        record = json.loads(earlier.response) if earlier.response else None
        if record is None or record.get("fp") != fingerprint or "seat" not in record:
            raise IdempotencyKeyReused(game_id)
        seat = int(record["seat"]["seat"])
        state = self.load(game_id)
        info = state.seats[seat]
        bot = info.bot if info is not None else False
        # the first attempt may have died before storing the token's hash: store it again
        token = self._seat_token(game_id, seat, bot, idempotency_key)
        if state.seated and table.pending(state) is not None:
            self.advance(game_id)
            state = self.load(game_id)
        return SeatGrant(
            seat, record["seat"]["name"], bot, record["seat"]["client_seed"], token, state
        )

    # -- presence --------------------------------------------------------------
    def _touch(self, game_id: str, now_ms: int | None = None) -> None:
        """Note that a person acted at the table now, by Redis's clock (for
        :meth:`abandon_if_idle`)."""
        try:
            if now_ms is None:
                self.store.stamp(game_id, ACTIVE_FIELD)
            else:
                self.store.redis.hset(keys.meta(game_id), ACTIVE_FIELD, now_ms)
        except Exception:  # bookkeeping only: the command itself has landed
            log.exception("could not note activity in game %s", game_id)

    def seat_present(self, game_id: str, seat: int, state: table.Table | None = None) -> None:
        """An authenticated request of ``seat`` (a view, a stream): if it was away, it is
        back (:class:`~service.engines.table.SeatBack`). Only its own move resets the
        count of turns it missed while not yet away. A bot's move for the seat that
        lands first is no reason to stay away: the seat is brought back on the new
        state (a few tries)."""
        for attempt in range(CONFLICT_RETRIES):
            if state is None or attempt:
                state = self.load(game_id)
            events = table.come_back(state, seat) if table.is_away(state, seat) else []
            if not events:
                return
            try:
                self._append(state, events)
            except VersionConflict:
                continue
            self._touch(game_id)
            return

    def abandon_if_idle(self, game_id: str, now_ms: int | None = None) -> bool:
        """End a started game nobody has acted in for ``abandon_after_s`` (no seat
        brought back, no move made by a person) at ``now_ms`` (Redis's time unless
        given): :class:`~service.engines.table.GameAbandoned`. A table with a seat
        still free is left to the retention pass, which expires it. Returns
        whether it was abandoned now."""
        limit_s = self.runtime.settings.abandon_after_s
        if limit_s <= 0:
            return False
        now_ms = self.store.now_ms(game_id) if now_ms is None else now_ms
        state = self.load(game_id)
        if state.over or not state.seated:
            return False  # a table that never started expires instead (service.retention)
        pipe = self.store.redis.pipeline(transaction=False)
        pipe.hget(keys.meta(game_id), ACTIVE_FIELD)
        pipe.xrevrange(keys.events(game_id), count=1)
        active, last = pipe.execute()
        if not last:
            return False
        # the stream's last entry is the last move (a person's, a bot's or a
        # timeout's); ``active_ms`` the last seat taken or brought back
        since_ms = max(int(active or 0), int(last[0][0].partition(b"-")[2]))
        if now_ms - since_ms < limit_s * 1000:
            return False
        events = table.abandon(state, ABANDONED_IDLE)
        if not events:
            return False
        try:
            self._append(state, events)
        except VersionConflict:
            return False  # something happened meanwhile: look again next time
        log.info("game abandoned", extra={"game_id": game_id, "version": state.version + 1})
        return True

    def submit_move(
        self,
        game_id: str,
        seat: int,
        move: object,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
        state: table.Table | None = None,
        last_entry: str | None = None,
    ) -> MoveResult:
        """A seat's move: shape-checked, decided by the engine, appended atomically.

        With ``expected_version`` a game that moved on is a :class:`VersionConflict`;
        without, a lost race is re-decided on the new state a few times. A
        repeated ``idempotency_key`` answers with the first attempt's body: the
        append script refuses a key it has seen, and a decision that fails looks
        the key up, so an accepted move costs no extra look-up. Keys are scoped
        to the seat: another seat's same key is another request.
        ``state``: the game as just loaded, to decide on first; with
        ``last_entry``, the cached state :meth:`seat_for_move` found instead.
        """
        fingerprint = None
        if idempotency_key is not None:
            fingerprint = _fingerprint(seat, move, expected_version)
            idempotency_key = seat_scoped_key(seat, idempotency_key)
        parsed: list[dict[str, Any]] = []

        def decide(state: table.Table) -> list[Event]:
            if not parsed:
                parsed.append(parse_move(state.kind, move))
            return [*table.come_back(state, seat), *table.decide(state, seat, parsed[0])]

        try:
            result = self._move(
                game_id,
                seat,
                decide,
                expected_version,
                idempotency_key,
                fingerprint,
                state,
                last_entry,
            )
        except Exception:
            # A retry is decided like a new request (the append itself refuses a key
            # already used), so the key is looked up only when the decision fails:
            # the game may have moved on because of this very request.
            earlier = (
                self.store.idempotent_result(game_id, idempotency_key) if idempotency_key else None
            )
            if earlier is None:
                raise
            return self._replay(game_id, earlier, fingerprint)
        return result

    def play_as(
        self,
        game_id: str,
        seat: int,
        move: Move,
        expected_version: int | None,
        timed_out: bool = False,
        state: table.Table | None = None,
    ) -> MoveResult:
        """A move made for ``seat`` without its token (bots, turn timeouts).

        With ``timed_out`` the events start with :class:`TurnTimedOut` (and
        :class:`SeatAway` when the seat keeps missing its turns), so the record
        says the seat did not choose this move. ``state``: the game as just
        loaded, to decide on.
        """

        def decide(state: table.Table) -> list[Event]:
            if timed_out:
                return table.time_out(state, seat, move)
            return table.decide(state, seat, move)

        return self._move(game_id, seat, decide, expected_version, None, None, state)

    def advance(self, game_id: str) -> int:
        """Take every system step due now (deals, settlements, the reveal); returns
        how many were appended. Each step is appended at the version it was
        computed from, so a racing duplicate call appends nothing twice."""
        taken = 0
        for _ in range(MAX_STEPS):
            state = self.load(game_id)
            if table.pending(state) is None:
                break
            seed = self.store.get_secret(game_id)
            if seed is None:
                # The seed is deleted once revealed: a racing caller that revealed it
                # since this load has moved the game on. Only a game still at this
                # version with a step due and no seed has lost it.
                if self.store.version(game_id) != state.version:
                    continue
                raise MissingSecret(f"game {game_id} has no server seed; it cannot deal")
            events = table.advance(state, seed)
            if not events:
                break
            try:
                self._append(state, events)
            except VersionConflict:
                continue  # someone else took this step; look again
            taken += 1
        return taken

    # -- the write path -----------------------------------------------------------
    def _move(
        self,
        game_id: str,
        seat: int,
        decide: Callable[[table.Table], list[Event]],
        expected_version: int | None,
        idempotency_key: str | None,
        fingerprint: str | None,
        state: table.Table | None = None,
        last_entry: str | None = None,
    ) -> MoveResult:
        answers: list[tuple[JSON, str]] = []

        def respond(new_state: table.Table, events: Sequence[Event]) -> str:
            first = new_state.version - len(events) + 1
            body = {
                "version": new_state.version,
                "first_version": first,
                "events": [
                    event_json(first + i, table.redact(new_state, e, seat))
                    for i, e in enumerate(events)
                ],
            }
            text = orjson.dumps(body).decode()
            answers.append((body, text))  # the last decision's is the one appended
            if fingerprint is None:  # no idempotency key: nothing is kept
                return text
            return f'{{"fp":{json.dumps(fingerprint)},"body":{text}}}'

        _, _, result = self._commit(
            game_id, decide, expected_version, idempotency_key, respond, state, last_entry
        )
        if result.duplicate:
            return self._replay(game_id, result, fingerprint)
        assert result.response is not None and answers
        body, text = answers[-1]
        return MoveResult(body, text=text)

    def _commit(
        self,
        game_id: str,
        decide: Callable[[table.Table], list[Event]],
        expected_version: int | None,
        idempotency_key: str | None = None,
        respond: Callable[[table.Table, Sequence[Event]], str] | None = None,
        loaded: table.Table | None = None,
        last_entry: str | None = None,
    ) -> tuple[table.Table, list[Event], AppendResult]:
        """Decide on the current state (``loaded``, if just read) and append;
        re-decide after a lost race unless the caller pinned ``expected_version``.

        ``last_entry`` says ``loaded`` is this process's cached state, not read
        just now (see :meth:`seat_for_move`): the append then also checks that
        the stream still ends with that entry, and anything the cached state
        would answer other than an append (another version than the one
        expected, a decision refused, a lost race) is asked again of the
        stream's current state, as if the cached state had not been there."""
        attempts = 1 if expected_version is not None else CONFLICT_RETRIES
        attempt = 0
        state = loaded
        while True:
            if state is None:
                state = self.load(game_id)
            try:
                if expected_version is not None and state.version != expected_version:
                    raise VersionConflict(game_id, expected_version, state.version)
                events = decide(state)
                new_state, result = self._append(
                    state, events, idempotency_key, respond, last_entry
                )
            except Exception as exc:
                if last_entry is None:
                    attempt += 1
                    if not isinstance(exc, VersionConflict) or attempt >= attempts:
                        raise
                state, last_entry = None, None
                continue
            return new_state, events, result

    def _append(
        self,
        state: table.Table,
        events: list[Event],
        idempotency_key: str | None = None,
        respond: Callable[[table.Table, Sequence[Event]], str] | None = None,
        last_entry: str | None = None,
    ) -> tuple[table.Table, AppendResult]:
        """Append ``events`` at ``state``'s version. ``respond`` renders the
        answer, kept with the idempotency key so a retry gets the same one.
        ``last_entry``: see :meth:`_commit`."""
        new_state = table.fold(events, state)
        response = respond(new_state, events) if respond is not None else None
        kept = response if idempotency_key is not None else None
        dispatch = self.runtime.append_dispatch()
        projection = self._projection(state, new_state, events)
        with APPEND_SECONDS.time():
            result = self.store.append(
                state.game_id,
                events,
                state.version,
                idempotency_key,
                kept,
                dispatch,
                last_entry,
                projection,
            )
        if result.duplicate:
            return new_state, result
        if any(isinstance(e, table.SeedRevealed) for e in events):
            # the event now holds the seed: the stored copy would only be a second one
            self.store.redis.delete(keys.secret(state.game_id))
        self._after_append(state, new_state, result, dispatch)
        return new_state, AppendResult(result.first_version, result.last_version, False, response)

    def _projection(
        self, old: table.Table, new: table.Table, events: Sequence[Event]
    ) -> Projection | None:
        """What the append needs to project itself, when folding it is all a
        follow-up would do (see :class:`service.store.Projection`); else ``None``.

        Not when anything else falls to the workers: a system step due (a
        deal, a settlement, the reveal), a bot or a seat marked away to act,
        the game over, or events a follow-up keeps notes of beside the fold
        (deals for the fairness counts, settled pots for the chip ledger)."""
        if not self.runtime.settings.project_on_append or not self.store.projects_appends:
            return None
        if new.over or not new.seated or table.pending(new) is not None:
            return None
        if any(getattr(e, "is_deal", False) or e.type == "PotSettled" for e in events):
            return None
        to_act = tuple(sorted(new.engine.to_act(new.engine_state)))
        if any(table.plays_automatically(new, seat) for seat in to_act):
            return None
        begun, idle = table.turn_changes(new, old.version)
        limit = new.turn_timeout_s
        return Projection(
            state=new,
            begun=begun,
            idle=idle,
            to_act=to_act,
            limit_ms=None if limit is None else clock.limit_ms(limit),
            due_key=self.runtime.followups.due_key(new.game_id),
        )

    def _after_append(
        self,
        old: table.Table | None,
        new: table.Table,
        result: AppendResult,
        dispatch: Dispatch | None = None,
    ) -> None:
        """Bookkeeping after a successful append: the cached state, the projection
        lag, the index, the workers.

        A follow-up is started only when the append set the game's marker anew;
        otherwise the follow-up already queued or running sees this append
        before it lets the marker go (see :mod:`service.coalesce`). Given a
        ``dispatch``, the append script itself put the game on the drains' list:
        only a drain job for the slot it took is left to enqueue."""
        DEFAULT_CACHE.put(new, result.at_ms)
        if not result.lag_counted:  # a cluster: the lag keys are not in the game's slot
            lag.appended(self.store.redis, new.game_id, new.version - (old.version if old else 0))
        if old is not None and old.status != new.status:
            self.store.set_status(new.game_id, new.status)
        if not result.fresh:
            return
        try:
            if result.drain_slot is None:
                self.followup(new.game_id, new.version)
            elif result.drain_slot >= 0 and dispatch is not None:
                self.start_drain(result.drain_slot, dispatch.token)
        except Exception:  # the move stands; the workers' reconciliation finds the game
            log.exception("could not enqueue the follow-up of game %s", new.game_id)

    def _replay(self, game_id: str, earlier: AppendResult, fingerprint: str | None) -> MoveResult:
        """The answer to a retried idempotent request: the first attempt's, or a
        422 when the key came back with a different request."""
        record = json.loads(earlier.response) if earlier.response else None
        if record is None or record.get("fp") != fingerprint:
            raise IdempotencyKeyReused(game_id)
        return MoveResult(record["body"], replayed=True)
