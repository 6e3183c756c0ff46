"""Players: a key that names a player, and the seats bound to it.

A player is made by ``POST /players``: an id and a key, the key a secret
shown once and stored only as its SHA-256 (:data:`KEYS`, one hash of
``sha256(key) → player id``). A seat taken with the key is bound to the
player: one entry appended to the player's seats stream
(``cardroom:{player:<id>}:seats``, fields ``g`` game id, ``k`` game, ``s``
seat, ``t`` the seat's token sealed like a server seed, :mod:`.seeds`), so
the player's seats are listed from it (newest first) and a live stream of
the player reads it like a game's events to learn of seats bound later.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from typing import Any, Final, cast

from .clients import Client
from .keys import PREFIX, check_game_id
from .seeds import SeedCipher, open_seed

KEYS: Final = f"{PREFIX}:{{players}}:keys"
"""Hash ``sha256(player key) → player id``."""
SEATS_KEPT: Final = 10_000
"""Bindings a player's seats stream keeps at most (the oldest are trimmed)."""
Rows = list[tuple[bytes, dict[bytes, bytes]]]


def seats_key(player_id: str) -> str:
    """The stream of ``player_id``'s bound seats."""
    return f"{PREFIX}:{{player:{check_game_id(player_id)}}}:seats"


def key_hash(player_key: str) -> str:
    return hashlib.sha256(player_key.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Binding:
    """A seat bound to a player; ``entry`` is its id in the player's seats stream."""

    entry: str
    game_id: str
    game: str
    seat: int
    sealed_token: bytes

    def token(self, cipher: SeedCipher | None) -> str:
        return open_seed(self.game_id, self.sealed_token, cipher).decode()


class Players:
    """Players' keys and bound seats in Redis."""

    def __init__(self, redis: Client, cipher: SeedCipher | None) -> None:
        self._redis = redis
        self._cipher = cipher

    def create(self) -> tuple[str, str]:
        """A new player: its id and its key (the key is stored only hashed)."""
        player_id = secrets.token_urlsafe(12)
        player_key = f"crp_{secrets.token_urlsafe(32)}"
        self._redis.hset(KEYS, key_hash(player_key), player_id)
        return player_id, player_key

    def player_of(self, player_key: str) -> str | None:
        """The id the key names (``None``: no such player)."""
        found = self._redis.hget(KEYS, key_hash(player_key))
        return found.decode() if isinstance(found, bytes) else None

    def bind(self, player_id: str, game_id: str, game: str, seat: int, token: str) -> None:
        token_bytes = token.encode()
        sealed = token_bytes if self._cipher is None else self._cipher.seal(game_id, token_bytes)
        fields: dict[Any, Any] = {"g": check_game_id(game_id), "k": game, "s": seat, "t": sealed}
        self._redis.xadd(seats_key(player_id), fields, maxlen=SEATS_KEPT, approximate=True)

    def last_entry(self, player_id: str) -> str:
        """The id of the player's newest binding (``0-0``: none)."""
        rows = cast(Rows, self._redis.xrevrange(seats_key(player_id), count=1))
        return rows[0][0].decode() if rows else "0-0"

    def bindings(self, player_id: str, upto: str = "+") -> list[Binding]:
        """The player's bindings up to entry ``upto``, oldest first."""
        rows = cast(Rows, self._redis.xrange(seats_key(player_id), "-", upto))
        return parse(rows)

    @property
    def cipher(self) -> SeedCipher | None:
        return self._cipher


def parse(rows: Rows) -> list[Binding]:
    """Bindings from the player's seats stream entries (as ``XRANGE``/``XREAD`` return them)."""
    return [
        Binding(
            entry_id.decode(),
            fields[b"g"].decode(),
            fields[b"k"].decode(),
            int(fields[b"s"]),
            fields[b"t"],
        )
        for entry_id, fields in rows
    ]
