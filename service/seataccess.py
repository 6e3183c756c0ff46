"""Seat access: which seat a bearer token opens, and the tokens given out.

A seat's token is given once, to whoever takes the seat, and kept only as
its SHA-256 (``cardroom:{<id>}:tokens``, hash → seat). A token is matched
against every seat's hash in constant time, so neither the timing nor the
answer tells an unknown token from another game's. A seat taken with an
idempotency key gets a token derived from the key (:mod:`service.seattokens`),
so a retry of the request is handed the same token.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Mapping
from typing import Any, Final

from service.engines import table
from service.seattokens import derive_token
from service.store import LRU, EventStore, GameNotFound, keys, load_game_and_tokens

from .errors import Forbidden, Unauthenticated
from .repository import GameRepository

TOKEN_BYTES: Final = 32
KNOWN_GAMES: Final = 1024
"""How many games' token hashes a process keeps (:attr:`SeatAccess.known`)."""


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def match_token(stored: Mapping[Any, Any], token: str) -> int | None:
    """The seat whose stored hash is the token's, comparing every one in constant time."""
    digest = hash_token(token).encode()
    seat: int | None = None
    for token_hash, raw_seat in stored.items():
        if hmac.compare_digest(token_hash, digest):
            seat = int(raw_seat)
    return seat


class SeatAccess:
    """Seat tokens of the games in ``repository``'s store: matching and issuing."""

    def __init__(self, repository: GameRepository, known_games: int = KNOWN_GAMES) -> None:
        self.repository = repository
        self.store: EventStore = repository.store
        self.known: LRU[str, Mapping[Any, Any]] = LRU(known_games)
        """The seats' token hashes of recent games, as their latest load read
        them. A hash once stored stays as long as its game (seats are never
        given new tokens), so a hash found here opens its seat even if more
        seats were taken since."""

    def authenticate(self, game_id: str, token: str | None, *, required: bool) -> int | None:
        """The seat ``token`` opens in ``game_id``; ``None`` when no token was
        sent and none is required."""
        if token is None:
            if required:
                raise Unauthenticated()
            return None
        stored = self.store.token_hashes(game_id)
        seat = match_token(stored, token)
        if seat is None:
            if not stored:
                self.repository.load(game_id)  # an unknown game is a 404, not a 403
            raise Forbidden()
        return seat

    def seat_and_state(self, game_id: str, token: str | None) -> tuple[int, table.Table]:
        """:meth:`authenticate` (a token is required) and the state in one round
        trip to Redis: the token hashes are read by the same script as the state."""
        if token is None:
            raise Unauthenticated()
        if not keys.GAME_ID_RE.fullmatch(game_id):
            raise GameNotFound(game_id)
        state, hashes = load_game_and_tokens(self.store, game_id, self.repository.cache)
        self.known.put(game_id, hashes)
        seat = match_token(hashes, token)
        if seat is None:
            raise Forbidden()
        return seat, state

    def seat_for_move(self, game_id: str, token: str | None) -> tuple[int, table.Table, str | None]:
        """The seat ``token`` opens and the state to decide its move on, with no
        round trip when this process has the game cached: the state kept by
        its last load or append, and the token among the seats' hashes its
        last load read (a seat's token is never replaced while its game
        lives). The third value is then the id of the cached state's last
        entry, for the append to check that the stream still ends there (a
        cached state that turns out stale is looked at no further).
        Otherwise :meth:`seat_and_state`, and ``None``."""
        if token is None:
            raise Unauthenticated()
        cached = self.repository.cached(game_id)
        hashes = self.known.get(game_id)
        if cached is not None and hashes is not None:
            state, at_ms = cached
            seat = match_token(hashes, token)
            if seat is not None and at_ms is not None and not state.over:
                return seat, state, f"{state.version}-{at_ms}"
        seat, state = self.seat_and_state(game_id, token)
        return seat, state, None

    def issue(self, game_id: str, seat: int, bot: bool, idempotency_key: str | None) -> str | None:
        """A new seat's token (``None`` for a bot), its hash stored for authentication."""
        if bot:
            return None
        if idempotency_key is None:
            token = secrets.token_urlsafe(TOKEN_BYTES)
        else:
            token = derive_token(self.store.seat_token_key(), game_id, seat, idempotency_key)
        self.store.put_token(game_id, seat, hash_token(token))
        return token
