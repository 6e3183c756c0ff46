"""The load path: the current state of a game, as cheaply as it can be had.

A state is the latest snapshot plus the fold of the events after it. Folded
states are also kept in memory, newest per game (:class:`StateCache`). A
load is one call into the store, one round trip to Redis (the
:data:`~service.store.lua.LOAD` script, see
:meth:`~service.store.eventstore.EventStore.load_parts`): it hands in the
cached state's version and gets back the stream's last entry id and only
what is missing, so a cached state older than the stream is brought up to
date by folding just the tail, and a stale state is never served as the
current one. A usable snapshot newer than the cached state is sent instead
when there is one; with neither, the whole stream.

A cached state also remembers the entry id (version and time) of its last
event when known. A failover of Redis may lose the newest events of a game
(see ``docs/operations.md``), after which other events can take their
versions; a cached state that includes a lost event is then either ahead
of the stream or names an entry that is not there, and is dropped instead
of being served or built upon.
"""

from __future__ import annotations

from typing import Final, Literal

from service.engines.table import Table, fold

from .errors import GameNotFound
from .eventstore import EventStore
from .statecache import StateCache

__all__ = ["STORE_CACHE", "GameNotFound", "StateCache", "load_game", "load_game_and_tokens"]

STORE_CACHE: Final = "store"
"""The default ``cache`` of a load: the store's own (:attr:`EventStore.states`)."""
Cache = StateCache | None | Literal["store"]


def load_game(
    store: EventStore,
    game_id: str,
    cache: Cache = STORE_CACHE,
    snapshot_every: int | None = None,
) -> Table:
    """The game's state at the stream's version when read, in one round trip
    to Redis (:meth:`EventStore.load_parts`); :class:`GameNotFound` if none.

    ``snapshot_every``: save a new snapshot when this many events or more had
    to be folded, so later loads start closer to the end.
    """
    return _load(store, game_id, cache, snapshot_every, tokens=False)[0]


def load_game_and_tokens(
    store: EventStore,
    game_id: str,
    cache: Cache = STORE_CACHE,
    snapshot_every: int | None = None,
) -> tuple[Table, dict[bytes, bytes]]:
    """:func:`load_game` and the game's token hashes (``sha256(token) → seat``),
    read in the same single round trip."""
    state, token_hashes = _load(store, game_id, cache, snapshot_every, tokens=True)
    assert token_hashes is not None
    return state, token_hashes


def _load(
    store: EventStore,
    game_id: str,
    given: Cache,
    snapshot_every: int | None,
    *,
    tokens: bool,
) -> tuple[Table, dict[bytes, bytes] | None]:
    cache = store.states if given == STORE_CACHE else given
    assert not isinstance(cache, str)
    cached = cache.entry(game_id) if cache is not None else None
    parts = store.load_parts(game_id, cached, tokens=tokens)
    if cache is not None and cached is not None and not parts.cached:
        cache.drop(game_id)  # it holds events the stream no longer has
    if not parts.events:
        # the stream ends at the base: the cached state itself, or a snapshot
        # of the very end (the state after the last entry)
        if parts.base is None:
            raise GameNotFound(game_id)
        if cached is None or parts.base is not cached[0]:
            _keep(cache, parts.base, parts.at_ms)
        return parts.base, parts.token_hashes
    state = fold([stored.event for stored in parts.events], parts.base)
    _keep(cache, state, parts.events[-1].at_ms)
    if snapshot_every is not None and len(parts.events) >= snapshot_every:
        store.save_snapshot(state.game_id, state)
    return state, parts.token_hashes


def _keep(cache: StateCache | None, state: Table, at_ms: int) -> None:
    if cache is not None:
        cache.put(state, at_ms)
