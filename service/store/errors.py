"""The event store's errors: narrow, named, and carrying what the caller needs.

Only the API layer turns them into HTTP (``VersionConflict`` → 409,
``GameNotFound`` → 404); everything below it raises and lets them travel.
"""

from __future__ import annotations

from typing import Final

from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError


class StoreError(Exception):
    """Base of every error the event store raises."""


class VersionConflict(StoreError):
    """An append whose expected version is not the stream's version.

    Someone else's events landed first (or the game already exists): reload
    the game at ``actual`` and decide again.
    """

    def __init__(self, game_id: str, expected: int, actual: int) -> None:
        self.game_id = game_id
        self.expected = expected
        self.actual = actual
        super().__init__(
            f"version conflict in game {game_id!r}: "
            f"expected version {expected}, stream is at {actual}"
        )


class NotReplicated(StoreError):
    """An append the game's master stored but fewer replicas than required
    confirmed in time (Redis ``WAIT``).

    The events are on the master, so they count as written for now; whether a
    failover would keep them is not known. A retry with the same idempotency
    key is safe: it returns the first result if the events survived, and
    lands them again if a failover lost them.
    """

    def __init__(self, game_id: str, first: int, last: int, acked: int, wanted: int) -> None:
        self.game_id = game_id
        self.first_version = first
        self.last_version = last
        self.acked = acked
        self.wanted = wanted
        super().__init__(
            f"game {game_id!r}: versions {first}..{last} are on the master but only "
            f"{acked} of {wanted} replicas confirmed them in time"
        )


class GameNotFound(StoreError, LookupError):
    """No event stream exists for ``game_id``."""

    def __init__(self, game_id: str) -> None:
        self.game_id = game_id
        super().__init__(f"no game {game_id!r}")


class GameExists(StoreError):
    """An import that would overwrite a game already in the store."""

    def __init__(self, game_id: str) -> None:
        self.game_id = game_id
        super().__init__(f"game {game_id!r} already exists; an import never overwrites")


class BadGameId(StoreError, ValueError):
    """A game id that cannot be part of a Redis key (it would break the hash tag)."""

    def __init__(self, game_id: object) -> None:
        self.game_id = game_id
        super().__init__(f"bad game id {game_id!r}: use 1-64 characters of A-Z a-z 0-9 _ -")


class CorruptExport(StoreError, ValueError):
    """A JSON Lines export that cannot be imported; ``line`` is 1-based (0: the whole text)."""

    def __init__(self, line: int, reason: str) -> None:
        self.line = line
        self.reason = reason
        super().__init__(f"export line {line}: {reason}" if line else f"export: {reason}")


class BadCursor(StoreError, ValueError):
    """A paging cursor that :meth:`~service.store.index.GamesIndex.list_games` did not hand out."""


CommandRefused = ResponseError
"""A command Redis answered with an error (a refused write: full, read-only, …)."""
STORE_UNAVAILABLE: Final = (RedisConnectionError, RedisTimeoutError)
"""What a command raises when Redis is away (a dead connection or a timeout)."""
