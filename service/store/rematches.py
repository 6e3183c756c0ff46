"""Rematches: :class:`RematchStore` (``store.rematches``) owns the game's rematch hash
(:func:`keys.rematch`): which seats of an ended game asked to play again, the claim of
the one request that opens the next game, that game's id and each old seat's seat there.
The hash expires (:data:`REMATCH_TTL_S`): a rematch nobody finished asking for is
forgotten."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, cast

from . import keys
from .clients import Client

REMATCH_TTL_S: Final = 24 * 3600
"""How long a rematch's confirmations and its next game's id are kept."""
SEAT: Final = "seat:"
NEXT: Final = "next:"
CLAIM: Final = "claim"
GAME: Final = "game"


@dataclass(frozen=True)
class Asked:
    """Where a rematch stands: the seats that asked for it, the next game's id (``None``
    until it is opened) and each old seat's seat there."""

    seats: set[int]
    game: str | None
    next_seats: dict[int, int]


class RematchStore:
    """The rematch hashes of every game."""

    def __init__(self, redis: Client) -> None:
        self._redis = redis

    def confirm(self, game_id: str, seat: int) -> Asked:
        """Note that ``seat`` asked for the rematch; where the rematch stands."""
        key = keys.rematch(game_id)
        pipe = self._redis.pipeline(transaction=False)  # one slot; a cluster pipeline too
        pipe.hset(key, f"{SEAT}{seat}", "1")
        pipe.expire(key, REMATCH_TTL_S)
        pipe.hgetall(key)
        return _read(cast("dict[bytes, bytes]", pipe.execute()[-1]))

    def read(self, game_id: str) -> Asked:
        """Where the rematch stands."""
        return _read(cast("dict[bytes, bytes]", self._redis.hgetall(keys.rematch(game_id))))

    def claim(self, game_id: str) -> bool:
        """Whether this caller is the one to open the next game (the first to claim)."""
        return bool(self._redis.hsetnx(keys.rematch(game_id), CLAIM, "1"))

    def release(self, game_id: str) -> None:
        """Give the claim up (opening the next game failed): a later request tries again."""
        self._redis.hdel(keys.rematch(game_id), CLAIM)

    def opened(self, game_id: str, next_game_id: str, seats: Mapping[int, int]) -> None:
        """Note the next game's id and each old seat's seat there."""
        pipe = self._redis.pipeline(transaction=False)
        for old, new in seats.items():
            pipe.hset(keys.rematch(game_id), f"{NEXT}{old}", new)
        pipe.hset(keys.rematch(game_id), GAME, next_game_id)  # last: the seats are there
        pipe.execute()


def _read(raw: dict[bytes, bytes]) -> Asked:
    fields = {k.decode(): v.decode() for k, v in raw.items()}
    asked = {int(k[len(SEAT) :]) for k in fields if k.startswith(SEAT)}
    seats = {int(k[len(NEXT) :]): int(v) for k, v in fields.items() if k.startswith(NEXT)}
    return Asked(asked, fields.get(GAME), seats)
