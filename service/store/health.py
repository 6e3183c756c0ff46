"""What the probes and the memory watch ask Redis itself: :class:`ServerHealth`
(``store.health``) owns the ready probe's key (:func:`keys.ready_probe`)."""

from __future__ import annotations

import hashlib
from typing import Any, Final

from . import keys, lua
from .clients import Client
from .clock import NOW
from .lag import CHANGE
from .removal import EXPIRE_IF_UNCHANGED

SCRIPTS: Final = (
    *(text for name, text in vars(lua).items() if name.isupper() and isinstance(text, str)),
    NOW,
    CHANGE,
    EXPIRE_IF_UNCHANGED,
)
"""Every Lua script the service runs."""


class ServerHealth:
    """Liveness, writability and memory of the store's Redis."""

    def __init__(self, redis: Client) -> None:
        self._redis = redis

    def ping(self) -> None:
        """Raise unless Redis answers."""
        self._redis.ping()

    def probe_write(self, at_ms: int, ttl_ms: int) -> None:
        """Write the ready probe (raises as any refused write does)."""
        self._redis.set(keys.ready_probe(), at_ms, px=ttl_ms)

    def load_scripts(self) -> int:
        """See that Redis holds every script of :data:`SCRIPTS` (``SCRIPT EXISTS``,
        then ``SCRIPT LOAD`` of those missing, as after a restart); how many were
        loaded. Raises when Redis refuses, or a script does not compile."""
        digests = [hashlib.sha1(text.encode()).hexdigest() for text in SCRIPTS]
        present = self._redis.script_exists(*digests)
        missing = [text for text, there in zip(SCRIPTS, present, strict=True) if not there]
        for text in missing:
            self._redis.script_load(text)
        return len(missing)

    def memory(self) -> Any:
        """``INFO memory``'s reply, as the client returns it (raises when refused)."""
        return self._redis.info("memory")
