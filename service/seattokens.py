"""Seat tokens that a retried seat request can get back, without storing them.

A seat taken with an idempotency key gets a token derived by HMAC-SHA256
from a server key and (game id, seat, idempotency key): the same request
sent again re-derives the very same token, and nobody without the key can.
The server key is drawn once and kept in Redis (like the server seeds), so
every API process derives the same tokens; tokens themselves are stored
nowhere, only their SHA-256 (see :mod:`service.seataccess`). The store reads
the key once (``store.seat_token_key()``, :mod:`service.store.seattoken`).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from typing import Final

from .store import seattoken

SERVER_KEY: Final = seattoken.SERVER_KEY
"""The Redis key holding the server's HMAC key (32 random bytes, set once)."""


def derive_token(key: bytes, game_id: str, seat: int, idempotency_key: str) -> str:
    """The bearer token of ``seat`` taken with ``idempotency_key`` (43 URL-safe chars)."""
    message = f"seat-token\x00{game_id}\x00{seat}\x00{idempotency_key}".encode()
    digest = hmac.new(key, message, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
