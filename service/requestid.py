"""The request id: taken from ``X-Request-Id`` or made, then carried by every log
line of the request and of the jobs it causes.

One context variable holds the id of the work in hand (an HTTP request, or a
job enqueued by one); :class:`service.logs.RequestIdFilter` puts it on every log
record. An id sent by a client is kept when it is 1 to
:data:`MAX_LENGTH` characters of :data:`ALLOWED` and does not look like a
secret (a seat token or a seed); otherwise a fresh one is made, so a client
cannot write whatever it likes into the logs.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Final

from .redact import looks_secret

HEADER: Final = "X-Request-Id"
MAX_LENGTH: Final = 64
ALLOWED: Final = re.compile(r"[A-Za-z0-9._:-]+")
"""Letters, digits and ``. _ : -``: what proxies and tracers put in the header."""

_current: ContextVar[str | None] = ContextVar("cardroom_request_id", default=None)


def new() -> str:
    """A fresh request id (32 hex digits)."""
    return uuid.uuid4().hex


def accept(sent: str | None) -> str:
    """The id to use for a request whose ``X-Request-Id`` was ``sent``: that one when
    it is well formed, else a fresh one."""
    if sent and len(sent) <= MAX_LENGTH and ALLOWED.fullmatch(sent) and not looks_secret(sent):
        return sent
    return new()


def current() -> str | None:
    """The id of the request (or job) in hand, if any."""
    return _current.get()


@contextmanager
def bound(request_id: str | None) -> Iterator[str | None]:
    """Make ``request_id`` the current one for the block (``None``: none)."""
    token = _current.set(request_id)
    try:
        yield request_id
    finally:
        _current.reset(token)


def begin(request_id: str) -> None:
    """Make ``request_id`` current in this context until :func:`end` (for hooks that
    open and close in different functions, as a request's do)."""
    _current.set(request_id)


def end() -> None:
    _current.set(None)
