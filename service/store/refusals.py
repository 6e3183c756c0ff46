"""Redis refusing writes: which error says so, and why.

Redis answers a write it will not take with an error instead of taking it:

- ``OOM command not allowed when used memory > 'maxmemory'``: the memory limit
  is reached and ``maxmemory-policy noeviction`` (as ``deploy/redis.conf``
  ships) evicts nothing (redis-py raises ``OutOfMemoryError``);
- ``MISCONF …``: persistence failed (an RDB save with
  ``stop-writes-on-bgsave-error yes``, or a write to the AOF) and Redis stops
  taking writes until it works again;
- ``READONLY …``: the server is a replica (a failover under way, or a
  misconfigured URL).

Reads still work in all three. :func:`refusal_reason` names the case, so the
API can answer ``503`` with ``Retry-After`` instead of a 500.
"""

from __future__ import annotations

from typing import Final, Literal, TypeAlias

import redis

Reason: TypeAlias = Literal["maxmemory", "persistence", "replica"]

RETRY_AFTER_S: Final[dict[Reason, int]] = {"maxmemory": 30, "persistence": 30, "replica": 5}
"""What ``Retry-After`` says: memory and disks wait for the workers' retention
pass or an operator; a replica is usually promoted (or replaced) in seconds."""

_MARKERS: Final[tuple[tuple[str, Reason], ...]] = (
    ("OOM command not allowed", "maxmemory"),
    ("command not allowed when used memory", "maxmemory"),
    ("MISCONF", "persistence"),
    ("READONLY", "replica"),
    ("You can't write against a read only replica", "replica"),
)


def refusal_reason(exc: BaseException) -> Reason | None:
    """Why Redis refused a write, if ``exc`` is such a refusal; else ``None``.

    Errors raised inside a Lua script or a pipeline keep the server's message
    (prefixed by redis-py with the command's position), so the message is
    looked at as well as the class."""
    if isinstance(exc, redis.exceptions.OutOfMemoryError):
        return "maxmemory"
    if isinstance(exc, redis.exceptions.ReadOnlyError):
        return "replica"
    if not isinstance(exc, redis.exceptions.ResponseError):
        return None
    message = str(exc)
    for marker, reason in _MARKERS:
        if marker in message:
            return reason
    return None
