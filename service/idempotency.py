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
import logging
import re
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from service.engines.base import JSON
from service.errors import BadClientSecret as BadClientSecret
from service.errors import IdempotencyKeyInUse as IdempotencyKeyInUse
from service.errors import IdempotencyKeyReused as IdempotencyKeyReused
from service.store import AppendResult, GameNotFound, keys
from service.store.creations import LEGACY, CreationRecord, CreationRecords, Reservation

log = logging.getLogger("cardroom.games")

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
SEAT_IDEMPOTENCY: Final = "seat:"
"""Prefix of a seat request's idempotency key in the store (moves use the bare key)."""
CREATION_WAIT_S: Final = 1.0
"""How long a repeated ``POST /games`` waits for its first request to open the table."""
CREATION_POLL_S: Final = 0.02
CREATION_RETRY_AFTER_S: Final = 1
"""The ``Retry-After`` of a repeat that waited in vain (the first request is still at it)."""


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


def move_fingerprint(seat: int, move: object, expected_version: int | None) -> str:
    """What makes two moves "the same" for an idempotency key."""
    return request_fingerprint({"seat": seat, "move": move, "expected_version": expected_version})


def seat_fingerprint(name: str, client_seed: str | None, bot: bool) -> str:
    """What makes two seat requests "the same"."""
    return request_fingerprint({"name": name, "client_seed": client_seed, "bot": bot})


def creation_fingerprint(
    game: str,
    options: Mapping[str, Any] | None,
    seats: int | None,
    bots: Sequence[tuple[int, str]] = (),
) -> str:
    """What makes two ``POST /games`` "the same": the body but for its key (``bots``
    only when there are some, so a body without them keeps its fingerprint)."""
    body: dict[str, Any] = {"game": game, "options": dict(options or {}), "seats": seats}
    if bots:
        body["bots"] = [[seat, name] for seat, name in bots]
    return request_fingerprint(body)


def seat_scoped_key(seat: int, idempotency_key: str) -> str:
    """A client's idempotency key as stored: scoped to the seat that sent it,
    so the same key chosen by two seats of a game names two requests."""
    return f"seat:{seat}:{idempotency_key}"


# -- the records kept with a key ------------------------------------------------------
def move_record(fingerprint: str, text: str) -> str:
    """What a move keeps with its key: its fingerprint and its answer's JSON."""
    return f'{{"fp":{json.dumps(fingerprint)},"body":{text}}}'


def seat_record(fingerprint: str, seat: JSON) -> str:
    """What a seat request keeps with its key: its fingerprint and the seat taken."""
    return json.dumps({"fp": fingerprint, "seat": seat}, separators=(",", ":"))


def replayed_move(game_id: str, earlier: AppendResult, fingerprint: str | None) -> JSON:
    """The first attempt's answer to a retried move, or :class:`IdempotencyKeyReused`
    when the key came back with a different request."""
    record = json.loads(earlier.response) if earlier.response else None
    if record is None or record.get("fp") != fingerprint:
        raise IdempotencyKeyReused(game_id)
    body: JSON = record["body"]
    return body


def replayed_seat(game_id: str, earlier: AppendResult, fingerprint: str) -> JSON:
    """The seat a retried seat request took first (``seat``, ``name``,
    ``client_seed``), or :class:`IdempotencyKeyReused`."""
    record = json.loads(earlier.response) if earlier.response else None
    if record is None or record.get("fp") != fingerprint or "seat" not in record:
        raise IdempotencyKeyReused(game_id)
    seat: JSON = record["seat"]
    return seat


# -- creation keys ----------------------------------------------------------------------
class CreationKeys:
    """The idempotency keys of ``POST /games``: reserved before anything is
    written, so one request opens one table however often it is sent."""

    def __init__(self, records: CreationRecords, wait_s: float = CREATION_WAIT_S) -> None:
        self.records = records
        self.wait_s = wait_s

    def claim(
        self, scope: str, idempotency_key: str, fingerprint: str, load: Callable[[str], Any]
    ) -> Reservation | Any:
        """The key reserved for this request, or the table (``load(game_id)``) an
        earlier request with it opened. A record naming a table that is gone
        (dropped unjoined, see :mod:`service.retention`) is forgotten: the
        key is free again."""
        record_key = keys.creation(scope, idempotency_key)
        while True:
            found = self._reserve(record_key, fingerprint)
            if isinstance(found, Reservation):
                return found
            assert found.game_id is not None
            try:
                return load(found.game_id)
            except GameNotFound:
                self.records.forget(record_key, found)

    def _reserve(self, record_key: str, fingerprint: str) -> Reservation | CreationRecord:
        """The key reserved for this request, or the record of the game an
        earlier request with the same body opened (waiting a little while it
        is opening it)."""
        deadline = time.monotonic() + self.wait_s
        while True:
            found = self.records.reserve(record_key, fingerprint)
            if isinstance(found, Reservation):
                return found
            if found.fingerprint not in (fingerprint, LEGACY):
                raise IdempotencyKeyReused()
            if found.game_id is not None:
                return found
            if time.monotonic() >= deadline:
                raise IdempotencyKeyInUse(CREATION_RETRY_AFTER_S)
            time.sleep(CREATION_POLL_S)

    def settle(self, reservation: Reservation, game_id: str | None) -> None:
        """Name the opened table in the key's record (or free the key). A failure
        is logged, not raised: the table stands (or the request's own error
        is the answer), and a pending record expires by itself."""
        try:
            settled = self.records.settle(reservation, game_id)
        except Exception:
            log.exception("could not settle the idempotency record of a new table")
            return
        if not settled:
            log.warning(
                "a creation's idempotency record was pending past %s ms",
                self.records.pending_ms,
                extra={"game_id": game_id},
            )
