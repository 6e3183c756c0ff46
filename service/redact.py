"""What no log line may carry, replaced by ``[redacted]``: by field name and by
the shape of the value.

- Names: a field one of whose words (split on ``_ . -``) is in
  :data:`SECRET_WORDS` (``token``, ``seed``, ``hand``, ``password``…), whatever
  it holds. ``handler`` is another word: it is kept.
- Values, anywhere (messages, tracebacks, nested fields): a seat token
  (43 URL-safe base64 characters, :mod:`service.seattokens` and
  :mod:`service.seataccess`), 64 hex digits (a server seed, or a digest of
  one), a bearer credential, and a list of two or more cards (a hand,
  in the notation of :mod:`service.engines.cards`).

Nothing else is dropped or changed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

REDACTED: Final = "[redacted]"
SECRET_WORDS: Final = frozenset(
    {
        "token",
        "tokens",
        "secret",
        "secrets",
        "seed",
        "seeds",
        "hand",
        "hands",
        "authorization",
        "password",
        "passwd",
        "cookie",
    }
)
_WORDS: Final = re.compile(r"[_.\-\s]+")
_CARD: Final = r"(?:10|[2-9TJQKAtjqka])[CDHScdhs]|[BRbr][Jj]"
VALUE_PATTERNS: Final = (
    # a bearer credential, whatever its shape
    re.compile(r"(?i)(?<=bearer )\S+"),
    # a seat token: 32 random bytes (or an HMAC-SHA256) in unpadded base64url
    re.compile(r"(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])"),
    # a server seed in hex (32 bytes), or its sealed or hashed forms of that length
    re.compile(r"(?<![0-9A-Fa-f])[0-9A-Fa-f]{64}(?![0-9A-Fa-f])"),
    # a hand written as a list: ['TD', 'AS', ...] or ["TD", "AS", ...]
    re.compile(rf"\[\s*['\"](?:{_CARD})['\"](?:\s*,\s*['\"](?:{_CARD})['\"])+\s*,?\s*\]"),
)
_ONE_CARD: Final = re.compile(rf"(?:{_CARD})")


def secret_name(name: str) -> bool:
    """Whether a field called ``name`` may hold a secret."""
    return any(word in SECRET_WORDS for word in _WORDS.split(name.lower()))


def redact_text(text: str) -> str:
    for pattern in VALUE_PATTERNS:
        text = pattern.sub(REDACTED, text)
    return text


def looks_secret(text: str) -> bool:
    """Whether ``text`` holds something shaped like a secret."""
    return any(pattern.search(text) for pattern in VALUE_PATTERNS)


def _is_hand(value: list[Any] | tuple[Any, ...]) -> bool:
    return len(value) >= 2 and all(
        isinstance(card, str) and _ONE_CARD.fullmatch(card) for card in value
    )


def redact(value: Any) -> Any:
    """``value`` with every secret in it replaced (containers are copied)."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, Mapping):
        return redact_fields(value)
    if isinstance(value, (list, tuple)):
        if _is_hand(value):
            return REDACTED
        return [redact(item) for item in value]
    if isinstance(value, (bytes, bytearray)):
        return REDACTED  # raw bytes in a log line: a key or a seed, as likely as not
    return value


def redact_fields(fields: Mapping[Any, Any], keep: frozenset[str] = frozenset()) -> dict[Any, Any]:
    """``fields`` with the secret-named ones replaced and the rest redacted by value;
    the names in ``keep`` are checked by value only."""
    out: dict[Any, Any] = {}
    for key, value in fields.items():
        name = str(key)
        out[key] = REDACTED if name not in keep and secret_name(name) else redact(value)
    return out
