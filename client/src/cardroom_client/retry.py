"""When to send a request again: transport failures, ``429`` and ``503`` (after
``Retry-After``), and a key still being handled (``409 idempotency-key-in-use``).

Every request the client sends again is safe to repeat: reads are, and each
write carries an idempotency key, so a repeat lands once.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import httpx

RETRIED_STATUSES = frozenset({429, 503})
TRANSPORT_ERRORS = (httpx.TransportError,)


@dataclass
class RetryPolicy:
    """How long the client keeps trying one request.

    ``retry_for_s``: the longest it waits in all for one request (``Retry-After``
    pauses and transport back-off together) before raising
    :class:`~cardroom_client.errors.GaveUp`. ``backoff_s`` doubles from its first
    value up to ``backoff_max_s`` between transport failures; a ``429``/``503``
    waits what its ``Retry-After`` says (``default_retry_after_s`` if it says nothing).
    """

    retry_for_s: float = 300.0
    backoff_s: float = 0.1
    backoff_max_s: float = 2.0
    default_retry_after_s: float = 1.0
    sleep: Callable[[float], None] = field(default=time.sleep, repr=False)


@dataclass
class Attempts:
    """One request's tries under a policy."""

    policy: RetryPolicy
    waited_s: float = 0.0
    failures: int = 0

    def wait(self, seconds: float) -> bool:
        """Sleep ``seconds`` if the budget allows it; False when it is spent."""
        if self.waited_s + seconds > self.policy.retry_for_s:
            return False
        self.policy.sleep(seconds)
        self.waited_s += seconds
        return True

    def backoff(self) -> bool:
        delay = min(self.policy.backoff_max_s, self.policy.backoff_s * 2**self.failures)
        self.failures += 1
        return self.wait(delay)
