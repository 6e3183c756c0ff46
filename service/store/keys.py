"""Every Redis key cardroom uses, built in one place.

A game's keys all carry the game id as a hash tag (``cardroom:{<game_id>}:…``)
so they share one cluster slot and a Lua script may touch several of them.
The games index is the only cross-game data; it is split into shards, each
shard's keys sharing their own hash tag (``cardroom:{index:<n>}:…``), so
listing never needs ``KEYS`` or a cross-slot command.
"""

from __future__ import annotations

import hashlib
import re
import zlib
from typing import Final

from .errors import BadGameId

PREFIX: Final = "cardroom"
GAME_ID_RE: Final = re.compile(r"[A-Za-z0-9_-]{1,64}")
NAME_RE: Final = re.compile(r"[a-z0-9_]{1,32}")
"""Game names and statuses, as they appear inside index keys."""
INDEX_SHARDS: Final = 16
LAG: Final = f"{PREFIX}:{{metrics}}:lag"
"""Projection lag: game id → events appended but not yet projected (:mod:`service.store.lag`)."""
LAG_TOTAL: Final = f"{PREFIX}:{{metrics}}:lag_total"
"""The sum of :data:`LAG`'s scores, kept beside it."""


def check_game_id(game_id: str) -> str:
    """``game_id`` itself, or :class:`BadGameId` if it could escape its hash tag."""
    if not isinstance(game_id, str) or not GAME_ID_RE.fullmatch(game_id):
        raise BadGameId(game_id)
    return game_id


def _game_key(game_id: str, suffix: str) -> str:
    return f"{PREFIX}:{{{check_game_id(game_id)}}}:{suffix}"


def events(game_id: str) -> str:
    """The game's event stream; entry ``<version>-<at_ms>`` holds one event."""
    return _game_key(game_id, "events")


def snapshot(game_id: str) -> str:
    """Hash ``{v: version, g: game, s: state}``: the newest folded state saved."""
    return _game_key(game_id, "snapshot")


def idem(game_id: str, key: str) -> str:
    """The record of one idempotent append (expires). ``key`` is hashed so
    any client string is a safe key suffix."""
    digest = hashlib.sha256(key.encode()).hexdigest()[:32]
    return _game_key(game_id, f"idem:{digest}")


def creation(scope: str, idempotency_key: str) -> str:
    """The idempotency record of a ``POST /games`` with ``idempotency_key`` by
    the client of ``scope`` (see :func:`service.idempotency.creation_scope`),
    named by a digest of both; records are spread over 256 hash tags."""
    raw = f"{scope}\0{idempotency_key}".encode("utf-8", "surrogatepass")
    digest = hashlib.sha256(raw).hexdigest()[:32]
    return f"{PREFIX}:{{create:{digest[:2]}}}:{digest}"


def secret(game_id: str) -> str:
    """The server seed, until the game reveals it."""
    return _game_key(game_id, "secret")


def tokens(game_id: str) -> str:
    """Hash ``sha256(token) → seat``; tokens themselves are never stored."""
    return _game_key(game_id, "tokens")


def rematch(game_id: str) -> str:
    """Hash of the rematch asked for at an ended game: ``seat:<n>`` for each seat that
    confirmed, ``claim`` while one request opens the next game, ``game`` its id (expires)."""
    return _game_key(game_id, "rematch")


def talk(game_id: str) -> str:
    """Stream of the table's preset messages: entries ``{s: seat, c: code}`` (capped,
    expires); a live stream of the game waits on it beside the events."""
    return _game_key(game_id, "talk")


def talk_gap(game_id: str, seat: int) -> str:
    """Set while ``seat`` may not send another message yet (expires with the gap)."""
    return _game_key(game_id, f"talk:gap:{int(seat)}")


def ledger(game_id: str) -> str:
    """Settlements already made (Azi pots), so a settling job runs once."""
    return _game_key(game_id, "ledger")


def meta(game_id: str) -> str:
    """Free per-game bookkeeping of the workers (timers, job marks): among its
    fields, :data:`TURN_FIELD` ``<seat>`` = ``<version>:<at_ms>``, where and
    when the seat's current turn began."""
    return _game_key(game_id, "meta")


TURN_FIELD: Final = "turn:"
"""The prefix of the :func:`meta` fields that say when each seat's turn began."""
ACTIVE_FIELD: Final = "active_ms"
"""The :func:`meta` field saying when a person last acted at the table (ms)."""
CREATOR_FIELD: Final = "creator"
"""The :func:`meta` field holding a digest of the scope of the client that opened
the table (:func:`service.seating.creator_mark`): never the client's secret."""


def index_shard(game_id: str, shards: int = INDEX_SHARDS) -> int:
    """The index shard holding ``game_id`` (stable across processes)."""
    return zlib.crc32(check_game_id(game_id).encode()) % shards


def index_games(shard: int, game: str | None = None, status: str | None = None) -> str:
    """Sorted set of game ids (score: creation time in ms) in one shard,
    optionally narrowed to one game and/or one status."""
    key = f"{PREFIX}:{{index:{shard}}}:games"
    if game is not None:
        key += f":game:{_name(game)}"
    if status is not None:
        key += f":status:{_name(status)}"
    return key


def index_meta(shard: int) -> str:
    """Hash ``game_id → "<game> <status> <created_ms>"`` of one shard, so a
    status change finds the sets to move the game between in the same slot."""
    return f"{PREFIX}:{{index:{shard}}}:meta"


def _name(value: str) -> str:
    if not NAME_RE.fullmatch(value):
        raise ValueError(f"bad index name {value!r}: use 1-32 characters of a-z 0-9 _")
    return value


def followup(game_id: str) -> str:
    """The game's follow-up marker: a counter bumped by every append (and every
    timer or reconciler poke) while a follow-up job is queued or running; it
    expires unless that job keeps refreshing it."""
    return _game_key(game_id, "followup")


def failures(game_id: str) -> str:
    """How often the game's follow-up failed in a row (for retries with backoff)."""
    return _game_key(game_id, "failures")


def due(shard: int) -> str:
    """Sorted set ``game_id → due ms`` of one shard of the timers index (bot
    thinking delays, turn timeouts, retries, leases of running follow-ups);
    a game is in shard :func:`index_shard`."""
    return f"{PREFIX}:{{due:{shard}}}:games"


def drains_pending(queue: str) -> str:
    """List of the games whose follow-up is due, in the order they came, served
    by the drain jobs of RQ queue ``queue`` (on the queue's Redis). A game is in
    it at most once while its marker lives; it is empty whenever the workers
    keep up."""
    return f"{PREFIX}:{{drains:{queue}}}:pending"


def drain_slot(queue: str, slot: int) -> str:
    """Held (with a lease) by the drain job serving :func:`drains_pending` in
    ``slot``; at most one job per slot."""
    return f"{PREFIX}:{{drains:{queue}}}:slot:{int(slot)}"


def reconciler(part: str = "state") -> str:
    """The reconciler's keys: ``state``, a hash of its cursor through the games
    index and the figures of its last complete sweep; ``lock``, held by the
    process running a pass."""
    return f"{PREFIX}:{{reconciler}}:{_name(part)}"


def audit() -> str:
    """The figures of the last complete ``cardroom audit`` (a hash)."""
    return f"{PREFIX}:{{audit}}:last"


def rate_address(budget: str, address: str) -> str:
    """An address's bucket of one budget (expires once full). The address is
    hashed, so any address (IPv6 included) is a safe hash tag of its own."""
    digest = hashlib.sha256(address.encode()).hexdigest()[:24]
    return f"{PREFIX}:{{rate:{digest}}}:{_name(budget)}"


def fairness_notes(game_id: str) -> str:
    """The fairness features of the game's deals, kept until the game is
    counted in the public report (never served)."""
    return _game_key(game_id, "fairness")


def answer(game_id: str, which: str) -> str:
    """An ended game's public answer (``replay``, ``verify`` or ``events``), built once and
    kept compressed with its ETag."""
    return _game_key(game_id, f"answer:{_name(which)}")


def retention_lock() -> str:
    """Held (with a TTL) by the process running the retention pass."""
    return f"{PREFIX}:{{retention}}:lock"


def ready_probe() -> str:
    """Written (with a short TTL) by ``/readyz`` to learn whether Redis takes writes."""
    return f"{PREFIX}:{{ready}}:probe"


def expired(game_id: str) -> str:
    """Left (with a TTL) where a table that never started was expired, so its
    players are told so (``410``) rather than that it never existed."""
    return _game_key(game_id, "expired")


def entry_time(entry_id: bytes | str) -> int:
    """The time part (ms) of a game's stream entry id ``<version>-<at_ms>``."""
    if isinstance(entry_id, bytes):
        return int(entry_id.partition(b"-")[2])
    return int(entry_id.partition("-")[2])


# -- turn webhooks (service/store/hooks.py) -----------------------------------
HOOKS_DUE: Final = f"{PREFIX}:{{hooks}}:due"
"""Sorted set ``"<game_id> <delivery_id>"`` → when that delivery's next attempt
is due (ms); a claimed one is pushed a lease ahead."""
HOOKS_WAKE: Final = f"{PREFIX}:{{hooks}}:wake"
"""List the senders block on (``BLPOP``): pushed to when deliveries are queued."""
HOOKS_PAUSED: Final = f"{PREFIX}:{{hooks}}:paused"
"""Sorted set ``"<game_id> <hook_id>"`` → when the subscription was paused."""


def hooks(game_id: str) -> str:
    """Hash hook id → ``"<seat> <events,…> <on|paused|ended>"``: what the append
    script matches its notices against."""
    return _game_key(game_id, "hooks")


def hook_info(game_id: str) -> str:
    """Hash hook id → JSON: the subscription's URL, secret, owner, failures."""
    return _game_key(game_id, "hookinfo")


def deliveries(game_id: str) -> str:
    """Hash delivery id → ``"<hook> <event> <seat> <version> <at_ms> <deadline_ms>"``,
    written by the append that decided the event."""
    return _game_key(game_id, "deliveries")


def delivery_log(game_id: str) -> str:
    """Sorted set delivery id → the time of its event (ms): the delivery log's order."""
    return _game_key(game_id, "deliverylog")


def delivery_state(game_id: str) -> str:
    """Hash delivery id → JSON: its status and attempts."""
    return _game_key(game_id, "deliverystate")


def hook_keys(game_id: str) -> list[str]:
    """Every webhook key of a game (all in its hash slot)."""
    return [
        hooks(game_id),
        hook_info(game_id),
        deliveries(game_id),
        delivery_log(game_id),
        delivery_state(game_id),
    ]
