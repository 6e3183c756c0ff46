"""``cardroom-shuffle-v1``: the verifiable fair shuffle of ``docs/cards.md``.

The server commits to a secret seed before any player chooses a client seed;
each deal's deck is a Fisher-Yates shuffle driven by an HMAC-SHA256 byte
stream keyed by the server seed. Once the seed is revealed anyone can redo
every deal. Standard library only.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from .cards import Card, canonical_deck
from .errors import EngineError

ALGORITHM: Final = "cardroom-shuffle-v1"
SEED_BYTES: Final = 32
CLIENT_SEED_RE: Final = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


class SeedError(EngineError):
    """A server or client seed that does not follow ``docs/cards.md``."""


def new_server_seed() -> bytes:
    """32 bytes from the operating system's CSPRNG."""
    return secrets.token_bytes(SEED_BYTES)


SEED_PLAYER: Final = "player"
"""A seat's ``seed_origin``: the seed came with the seat request (the player's own)."""
SEED_DERIVED: Final = "derived"
"""A seat's ``seed_origin``: the server derived it from the committed server seed
(:func:`derived_client_seed`), so it was fixed before anyone sat down."""
SEED_UNRECORDED: Final = "unrecorded"
"""A seat's ``seed_origin`` in a game stored before origins were recorded: its
seed was the player's or drawn at random by the server, which was not committed."""
SEED_ORIGINS: Final = (SEED_PLAYER, SEED_DERIVED, SEED_UNRECORDED)
DERIVED_SEED_MESSAGE: Final = "client-seed:"
"""The HMAC message of a derived seed is this followed by the seat index."""


def derived_client_seed(server_seed: bytes, seat: int) -> str:
    """The seed the server supplies for ``seat`` (a bot, or a player who gives
    none): the first 16 bytes of ``HMAC-SHA256(server_seed, "client-seed:" + seat)``
    as 32 lowercase hex digits. It is fixed by the commitment, so the server
    cannot choose it after seeing anyone else's seed, and anyone can re-derive it
    once the seed is revealed."""
    msg = f"{DERIVED_SEED_MESSAGE}{seat}".encode()
    return hmac.new(server_seed, msg, hashlib.sha256).hexdigest()[:32]


def commitment(server_seed: bytes) -> str:
    """The public commitment: ``sha256(server_seed)`` as lowercase hex."""
    return hashlib.sha256(server_seed).hexdigest()


def validate_client_seed(seed: object) -> str:
    if not isinstance(seed, str) or not CLIENT_SEED_RE.fullmatch(seed):
        raise SeedError(f"bad client_seed {seed!r}: use 1-64 characters of A-Z a-z 0-9 _ -")
    return seed


def parse_server_seed(hex_seed: str) -> bytes:
    try:
        raw = bytes.fromhex(hex_seed)
    except (ValueError, TypeError) as exc:
        raise SeedError(f"bad server_seed {hex_seed!r}: not hex") from exc
    if len(raw) != SEED_BYTES:
        raise SeedError(f"bad server_seed: {len(raw)} bytes, expected {SEED_BYTES}")
    return raw


def stream_prefix(game_id: str, deal: int, client_seeds: Sequence[str]) -> str:
    return f"{ALGORITHM}:{game_id}:{deal}:" + ":".join(client_seeds)


@dataclass(slots=True)
class DealStream:
    """The byte stream of one deal, read four bytes at a time by :meth:`draw`."""

    server_seed: bytes
    prefix: str
    _block: int = 0
    _buffer: bytes = b""
    _pos: int = 0
    draws: int = field(default=0)

    @classmethod
    def for_deal(
        cls, server_seed: bytes, game_id: str, deal: int, client_seeds: Sequence[str]
    ) -> DealStream:
        return cls(server_seed, stream_prefix(game_id, deal, client_seeds))

    def _next4(self) -> int:
        if self._pos + 4 > len(self._buffer):
            msg = f"{self.prefix}:{self._block}".encode()
            block = hmac.new(self.server_seed, msg, hashlib.sha256).digest()
            self._buffer = self._buffer[self._pos :] + block
            self._pos = 0
            self._block += 1
        value = int.from_bytes(self._buffer[self._pos : self._pos + 4], "big")
        self._pos += 4
        return value

    def draw(self, n: int) -> int:
        """A uniform integer in ``[0, n)`` by rejection sampling (no modulo bias)."""
        if not 1 <= n <= 2**32:
            raise ValueError(f"draw({n}): n must be in 1..2**32")
        limit = 2**32 - (2**32 % n)
        while True:
            x = self._next4()
            if x < limit:
                self.draws += 1
                return x % n

    def shuffle(self, cards: Sequence[Card]) -> list[Card]:
        """Fisher-Yates from the top index down, as the rules specify."""
        deck = list(cards)
        for i in range(len(deck) - 1, 0, -1):
            j = self.draw(i + 1)
            deck[i], deck[j] = deck[j], deck[i]
        return deck


@dataclass(frozen=True, slots=True)
class Shuffler:
    """Everything needed to produce any deal of one game.

    Engines receive a :class:`Shuffler` (or any object with the same
    ``deal`` method) whenever chance is needed, so replaying recorded events
    never needs it again.
    """

    server_seed: bytes
    game_id: str
    client_seeds: tuple[str, ...]

    def deal(self, deal: int, deck_size: int) -> tuple[list[Card], DealStream]:
        """The shuffled deck of deal ``deal`` and its stream, positioned after
        the shuffle for any further draws (e.g. the first dealer)."""
        stream = DealStream.for_deal(self.server_seed, self.game_id, deal, self.client_seeds)
        return stream.shuffle(canonical_deck(deck_size)), stream


def shuffled_deck(
    server_seed: bytes,
    game_id: str,
    deal: int,
    client_seeds: Sequence[str],
    deck_size: int,
) -> list[Card]:
    return Shuffler(server_seed, game_id, tuple(client_seeds)).deal(deal, deck_size)[0]


def deck_digest(deck: Sequence[Card]) -> str:
    """SHA-256 of the deck written as space-separated canonical cards."""
    return hashlib.sha256(" ".join(str(c) for c in deck).encode()).hexdigest()


class VerificationError(EngineError):
    """A revealed seed that does not match its commitment."""


def verify(
    commitment_hex: str,
    server_seed_hex: str,
    game_id: str,
    client_seeds: Sequence[str],
    deal: int,
    deck_size: int,
) -> list[Card]:
    """Check the revealed seed against the commitment and re-derive deal ``deal``.

    Returns the deck; raises :class:`VerificationError` if the seed does not
    hash to the commitment.
    """
    seed = parse_server_seed(server_seed_hex)
    if not hmac.compare_digest(commitment(seed), commitment_hex.lower()):
        raise VerificationError(
            f"sha256(server_seed) = {commitment(seed)} does not match commitment {commitment_hex}"
        )
    for s in client_seeds:
        validate_client_seed(s)
    return shuffled_deck(seed, game_id, deal, client_seeds, deck_size)
