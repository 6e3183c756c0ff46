"""The server key that seat tokens are derived from (:mod:`service.seattokens`):
32 random bytes drawn once by the first process that needs them and kept in
Redis, so every API process derives the same tokens. :class:`SeatTokenKey`
owns the key; ``store.seat_token_key()`` returns it (read once per store)."""

from __future__ import annotations

import secrets
from typing import Final

from .clients import Client

SERVER_KEY: Final = "cardroom:{seat-token-key}"
"""The Redis key holding the server's HMAC key (32 random bytes, set once)."""


class SeatTokenKey:
    """Called, the HMAC key: drawn and stored by the first process that needs
    it, then kept by this instance."""

    def __init__(self, redis: Client) -> None:
        self._redis = redis
        self._key: bytes | None = None

    def __call__(self) -> bytes:
        if self._key is None:
            self._redis.set(SERVER_KEY, secrets.token_bytes(32), nx=True)
            key = self._redis.get(SERVER_KEY)
            if not isinstance(key, bytes) or len(key) < 32:
                raise RuntimeError(f"{SERVER_KEY} holds no usable key")
            self._key = key
        return self._key
