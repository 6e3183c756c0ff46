"""What makes two requests "the same" for an idempotency key.

Every endpoint that takes an ``idempotency_key`` keeps, with the key, a
fingerprint of the request it first came with: the SHA-256 of the request's
canonical JSON (:func:`request_fingerprint`). The key sent again with the
same request is a retry and gets the first answer; with another request it
is :class:`IdempotencyKeyReused` (a 422), and nothing changes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any


class IdempotencyKeyReused(ValueError):
    """An idempotency key sent again with a different request."""

    def __init__(self, game_id: str) -> None:
        super().__init__(
            f"idempotency_key was already used in game {game_id} for a different request; "
            "use a new key for a new move"
        )


def request_fingerprint(request: Mapping[str, Any]) -> str:
    """SHA-256 (hex) of ``request`` as canonical JSON: keys sorted, no spaces,
    anything not JSON by its ``str``. Two requests are the same when their
    fingerprints are."""
    canonical = json.dumps(request, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()
