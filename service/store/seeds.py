"""Server seeds at rest: sealed with AES-256-GCM under an operator's key.

A game's server seed is the one secret that decides its deals until the game
reveals it, so it is never stored in the clear where a key is configured: a
copy of Redis alone then cannot predict a deal. Each sealed seed is
``cr-seed1:<key id>:<base64(nonce ‖ ciphertext ‖ tag)>``, authenticated with
the game id as associated data, so a sealed seed moved to another game does
not open either.

Keys come from ``CARDROOM_SEED_KEYS`` or the file named by
``CARDROOM_SEED_KEYS_FILE``: entries ``<id>:<base64 of 32 bytes>`` separated
by commas or new lines. The first seals new seeds; every one listed opens
seeds sealed with it, which is how keys are rotated (see docs/operations.md).
The embedded default (an in-process fake Redis, which dies with the process)
draws a process key when none is configured. With a real Redis and no key,
seeds are stored in the clear and a warning is logged once.
"""

from __future__ import annotations

import base64
import binascii
import logging
import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from .errors import StoreError

log = logging.getLogger("cardroom.seeds")

PREFIX: Final = b"cr-seed1:"
NONCE_BYTES: Final = 12
KEY_BYTES: Final = 32
KEY_ID_RE: Final = re.compile(r"[A-Za-z0-9_.-]{1,32}")
PROCESS_KEY_ID: Final = "process"


class SeedKeyError(StoreError, ValueError):
    """A malformed key list, or a sealed seed no configured key opens."""


@dataclass(frozen=True)
class SeedCipher:
    """Seals and opens server seeds; ``keys[0]`` seals, any of them opens."""

    keys: tuple[tuple[str, bytes], ...]

    def __post_init__(self) -> None:
        if not self.keys:
            raise SeedKeyError("a seed cipher needs at least one key")
        for key_id, key in self.keys:
            if not KEY_ID_RE.fullmatch(key_id):
                raise SeedKeyError(f"bad seed key id {key_id!r}: 1-32 of A-Z a-z 0-9 _ . -")
            if len(key) != KEY_BYTES:
                raise SeedKeyError(f"seed key {key_id!r} is {len(key)} bytes, not {KEY_BYTES}")

    @property
    def key_id(self) -> str:
        """The id of the key that seals new seeds."""
        return self.keys[0][0]

    def seal(self, game_id: str, seed: bytes) -> bytes:
        key_id, key = self.keys[0]
        nonce = os.urandom(NONCE_BYTES)
        sealed = AESGCM(key).encrypt(nonce, seed, game_id.encode())
        return PREFIX + key_id.encode() + b":" + base64.b64encode(nonce + sealed)

    def open(self, game_id: str, stored: bytes) -> bytes:
        """The seed of a value :meth:`seal` made (or a seed stored in the clear)."""
        return open_seed(game_id, stored, self)


def open_seed(game_id: str, stored: bytes, cipher: SeedCipher | None) -> bytes:
    """``stored`` opened: a sealed seed with the key it names, a clear one as it is."""
    if not stored.startswith(PREFIX):
        return stored  # stored in the clear (no key was configured when it was drawn)
    key_id, sep, body = stored[len(PREFIX) :].partition(b":")
    if not sep:
        raise SeedKeyError("a sealed seed without a key id")
    named = key_id.decode(errors="replace")
    key = dict(cipher.keys).get(named) if cipher is not None else None
    if key is None:
        raise SeedKeyError(f"no configured seed key has the id {named!r}")
    try:
        raw = base64.b64decode(body, validate=True)
        return AESGCM(key).decrypt(raw[:NONCE_BYTES], raw[NONCE_BYTES:], game_id.encode())
    except (InvalidTag, binascii.Error, ValueError):
        raise SeedKeyError(f"the seed of game {game_id} does not open with key {named!r}") from None


def parse_keys(text: str) -> tuple[tuple[str, bytes], ...]:
    """``<id>:<base64 key>`` entries separated by commas or new lines."""
    out: list[tuple[str, bytes]] = []
    for entry in re.split(r"[,\n]", text):
        entry = entry.strip()
        if not entry or entry.startswith("#"):
            continue
        key_id, sep, encoded = entry.partition(":")
        if not sep:
            raise SeedKeyError("a seed key entry is <id>:<base64 of 32 bytes>")
        try:
            key = base64.b64decode(encoded.strip(), validate=True)
        except binascii.Error:
            raise SeedKeyError(f"seed key {key_id.strip()!r} is not base64") from None
        out.append((key_id.strip(), key))
    ids = [key_id for key_id, _ in out]
    if len(set(ids)) != len(ids):
        raise SeedKeyError("seed key ids must be distinct")
    return tuple(out)


def new_key_entry(key_id: str) -> str:
    """A fresh ``<id>:<base64 key>`` entry (``cardroom seed-key``)."""
    return f"{key_id}:{base64.b64encode(AESGCM.generate_key(bit_length=256)).decode()}"


_lock = threading.Lock()
_process_cipher: SeedCipher | None = None
_warned = False


def configured_cipher(keys_text: str | None, keys_file: str | None) -> SeedCipher | None:
    """The cipher of the configured keys (the setting, else the file), if any."""
    text = keys_text
    if not text and keys_file:
        text = Path(keys_file).read_text(encoding="utf-8")
    if not text:
        return None
    return SeedCipher(parse_keys(text))


def default_cipher(
    in_process: bool, keys: str | None = None, keys_file: str | None = None
) -> SeedCipher | None:
    """The cipher of the keys given (the settings ``CARDROOM_SEED_KEYS`` and
    ``CARDROOM_SEED_KEYS_FILE`` of docs/operations.md, which
    :meth:`service.runtime.Runtime.seed_cipher` hands in); with none, for an
    in-process store (nothing outlives the process), a key drawn for the
    process; else ``None`` (seeds in the clear), warned about once."""
    global _process_cipher, _warned
    configured = configured_cipher(keys, keys_file)
    if configured is not None:
        return configured
    with _lock:
        if in_process:
            if _process_cipher is None:
                _process_cipher = SeedCipher(((PROCESS_KEY_ID, AESGCM.generate_key(256)),))
            return _process_cipher
        if not _warned:
            _warned = True
            log.warning(
                "no CARDROOM_SEED_KEYS: server seeds are stored unencrypted in Redis; "
                "see docs/operations.md"
            )
        return None


def is_in_process(client: object) -> bool:
    """Whether ``client`` is an in-process fake Redis (the embedded default, tests)."""
    return type(client).__module__.startswith("fakeredis")
