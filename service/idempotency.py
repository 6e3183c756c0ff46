"""What makes two requests "the same", and whose idempotency keys they are.

Every endpoint that takes an ``idempotency_key`` keeps, with the key, a
fingerprint of the request it first came with: the SHA-256 of the request's
canonical JSON (:func:`request_fingerprint`). The key sent again with the
same request is a retry and gets the first answer; with another request it
is :class:`IdempotencyKeyReused` (a 422), and nothing changes.

A key belongs to a scope, so that two clients choosing the same key make two
requests: a move's key to the seat that sent it (its token proves it), a
creation's key to its client, named by a secret only that client knows
(:func:`creation_scope`). Like an account's API key elsewhere, knowing the
secret is what lets a request be taken for a retry of another.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any, Final

from service.errors import BadClientSecret as BadClientSecret
from service.errors import IdempotencyKeyInUse as IdempotencyKeyInUse
from service.errors import IdempotencyKeyReused as IdempotencyKeyReused

CLIENT_SECRET: Final = "Client-Secret"
"""The header holding a client's secret, the scope of its creation keys."""
CLIENT_ID: Final = "Client-Id"
"""The older name of :data:`CLIENT_SECRET` (deprecated, still served): its value is
taken for a client secret the same way; one too short to be a secret is tied to
the client's address as well."""
CLIENT_SECRET_MIN: Final = 16
CLIENT_SECRET_MAX: Final = 256
CLIENT_SECRET_PATTERN: Final = rf"^[!-~]{{{CLIENT_SECRET_MIN},{CLIENT_SECRET_MAX}}}$"
"""16-256 visible ASCII characters: e.g. 24 random bytes in URL-safe base64."""
_CLIENT_SECRET_RE: Final = re.compile(CLIENT_SECRET_PATTERN)


def request_fingerprint(request: Mapping[str, Any]) -> str:
    """SHA-256 (hex) of ``request`` as canonical JSON: keys sorted, no spaces,
    anything not JSON by its ``str``. Two requests are the same when their
    fingerprints are."""
    canonical = json.dumps(request, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


def _digest(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()


def creation_scope(secret: str | None, client_id: str | None, address: str) -> str:
    """Whose keys a ``POST /games`` key is among, from the request's headers and address.

    - ``Client-Secret`` (:data:`CLIENT_SECRET_PATTERN`, else :class:`BadClientSecret`):
      its SHA-256. Only a client that knows the secret can replay a table
      opened with it, or collide with its keys.
    - else ``Client-Id`` (deprecated): a value of 16 characters or more is a
      secret like ``Client-Secret`` (the same value, the same scope, so a
      client may rename its header and keep its keys); a shorter one is no
      secret, so it is tied to the address too.
    - else the client's address (as the rate limiter sees it).

    The scope holds only digests: no secret is kept or logged.
    """
    if secret is not None:
        if not _CLIENT_SECRET_RE.fullmatch(secret):
            raise BadClientSecret(CLIENT_SECRET, CLIENT_SECRET_MIN, CLIENT_SECRET_MAX)
        return "secret:" + _digest(secret)
    legacy = (client_id or "").strip()
    if len(legacy) >= CLIENT_SECRET_MIN:
        return "secret:" + _digest(legacy)
    if legacy:
        return f"id:{_digest(legacy)}@{address}"
    return "addr:" + address
