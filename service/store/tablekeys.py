"""A table's own keys beside its stream: the server seed, the seat tokens' hashes
and when a person last acted.

Part of :class:`service.store.EventStore`. The server seed is sealed at rest
(:mod:`service.store.seeds`) and deleted once an event reveals it; a token is
kept only as its SHA-256.
"""

from __future__ import annotations

from typing import Any, cast

from . import keys
from .clients import Client, Pipe
from .reads import _split_id
from .seeds import SeedCipher, open_seed


class TableKeys:
    """The seed, token and activity keys of :class:`service.store.EventStore`."""

    _redis: Client
    _stamp: Any
    seeds: SeedCipher | None

    def stamp(self, game_id: str, field: str) -> int:
        """Set ``field`` of the game's meta hash to Redis's time now (ms); that time."""
        return int(self._stamp(keys=[keys.meta(game_id)], args=[field]))

    def put_secret(self, game_id: str, seed: bytes, pipe: Pipe | None = None) -> None:
        """Keep the game's server seed; an existing seed is never replaced
        (its commitment is already public). Sealed with :attr:`seeds`, if set."""
        stored = seed if self.seeds is None else self.seeds.seal(game_id, seed)
        (pipe or self._redis).set(keys.secret(game_id), stored, nx=True)

    def get_secret(self, game_id: str) -> bytes | None:
        stored = _bytes(self._redis.get(keys.secret(game_id)))
        return None if stored is None else open_seed(game_id, stored, self.seeds)

    def delete_secret(self, game_id: str) -> None:
        """Forget the game's server seed (once an event has revealed it)."""
        self._redis.delete(keys.secret(game_id))

    def put_token(self, game_id: str, seat: int, token_hash: str, pipe: Pipe | None = None) -> None:
        """Remember which seat a token belongs to, by the token's hash only."""
        (pipe or self._redis).hset(keys.tokens(game_id), token_hash, seat)

    def token_hashes(self, game_id: str) -> dict[bytes, bytes]:
        """``sha256(token) → seat`` of every seat given a token (``{}``: none, or no game)."""
        return cast("dict[bytes, bytes]", self._redis.hgetall(keys.tokens(game_id)))

    def seat_for_token_hash(self, game_id: str, token_hash: str) -> int | None:
        raw = _bytes(self._redis.hget(keys.tokens(game_id), token_hash))
        return None if raw is None else int(raw)

    def note_creator(self, game_id: str, mark: str) -> None:
        """Keep the digest that marks the table creator's client (see
        :data:`keys.CREATOR_FIELD`)."""
        self._redis.hset(keys.meta(game_id), keys.CREATOR_FIELD, mark)

    def creator_mark(self, game_id: str) -> str | None:
        """The digest :meth:`note_creator` kept, if any."""
        raw = _bytes(self._redis.hget(keys.meta(game_id), keys.CREATOR_FIELD))
        return None if raw is None else raw.decode()

    def note_activity(self, game_id: str, at_ms: int | None = None) -> None:
        """Note that a person acted at the table at ``at_ms`` (Redis's time now
        when ``None``), in the game's meta hash."""
        if at_ms is None:
            self.stamp(game_id, keys.ACTIVE_FIELD)
        else:
            self._redis.hset(keys.meta(game_id), keys.ACTIVE_FIELD, at_ms)

    def last_activity(self, game_id: str) -> int | None:
        """When anything last happened at the table (ms): the later of its last
        event's entry and the last noted activity; ``None`` when it has no events."""
        pipe = self._redis.pipeline(transaction=False)
        pipe.hget(keys.meta(game_id), keys.ACTIVE_FIELD)
        pipe.xrevrange(keys.events(game_id), count=1)
        active, last = pipe.execute()
        if not last:
            return None
        return max(int(active or 0), _split_id(last[0][0])[1])


def _bytes(reply: object) -> bytes | None:
    """A reply of a client that returns bytes (the store insists on one)."""
    return cast("bytes | None", reply)
