"""The application service's errors, under one root.

The service (``service/games.py`` and the request guards beside it) raises
these narrow errors and lets them travel; only the API layer turns them into
HTTP (``service/api/errors.py``). Each keeps the standard base it always had
(``ValueError``, ``RuntimeError``) besides :class:`ServiceError`, so whoever
catches it by that base still does. This module imports nothing of the
project, so every module of the service may raise from it.
"""

from __future__ import annotations

import math


class ServiceError(Exception):
    """Base of every error the application service raises."""


class Unauthenticated(ServiceError):
    """No seat token where one is required."""


class Forbidden(ServiceError):
    """A seat token that opens no seat of this game (unknown, or another game's)."""


class MissingSecret(ServiceError, RuntimeError):
    """A game whose server seed is gone: it can deal no more (an operator's problem)."""


class IdempotencyKeyReused(ServiceError, ValueError):
    """An idempotency key sent again with a different request."""

    def __init__(self, game_id: str | None = None) -> None:
        if game_id is None:
            detail = (
                "idempotency_key was already used by this client to open a table with a "
                "different request; use a new key for a new table"
            )
        else:
            detail = (
                f"idempotency_key was already used in game {game_id} for a different request; "
                "use a new key for a new move"
            )
        super().__init__(detail)


class IdempotencyKeyInUse(ServiceError, RuntimeError):
    """An idempotency key whose first request is still being handled."""

    def __init__(self, retry_after_s: int) -> None:
        self.retry_after_s = retry_after_s
        super().__init__(
            "a request with this idempotency_key is still being handled; send it again "
            f"after {retry_after_s} s to get its answer"
        )


class BadClientSecret(ServiceError, ValueError):
    """A client-secret header (``header``) that cannot be a secret: a secret is
    ``least``-``most`` visible ASCII characters (:mod:`service.idempotency`)."""

    def __init__(self, header: str, least: int, most: int) -> None:
        super().__init__(
            f"the {header} header must be {least}-{most} "
            "visible ASCII characters, drawn at random (e.g. 24 random bytes in base64)"
        )


class RateLimited(ServiceError):
    """A request over its budget: which budget, whose, and when to come back.

    ``rate`` is the budget's :class:`~service.budgets.Rate` (only its text is
    used here, so this module need not import the budgets)."""

    def __init__(self, budget: str, who: str, rate: object, retry_after_ms: float) -> None:
        self.budget = budget
        self.who = who
        self.rate = rate
        self.retry_after_s = max(1, math.ceil(retry_after_ms / 1000))
        super().__init__(
            f"too many requests of the {budget!r} budget from {who} "
            f"(it allows {rate}); retry after {self.retry_after_s} s"
        )


class WebhookUrlRefused(ServiceError, ValueError):
    """A webhook URL cardroom will not call: ``reason`` says why, as a code
    (``scheme``, ``malformed``, ``credentials``, ``unresolvable``, ``address``,
    ``denied``, ``not_allowed``)."""

    def __init__(self, reason: str, detail: str) -> None:
        self.reason = reason
        super().__init__(detail)


class TooManyWebhooks(ServiceError, RuntimeError):
    """A game's (``scope`` ``game``) or a seat's (``seat``) subscriptions are at their cap."""

    def __init__(self, scope: str, limit: int) -> None:
        self.scope = scope
        self.limit = limit
        super().__init__(
            f"this {scope} already has {limit} webhook subscriptions, the most it may have; "
            "delete one first"
        )


class WebhookNotFound(ServiceError, LookupError):
    """No such subscription (or delivery) of this seat in this game."""

    def __init__(self, what: str, ident: str) -> None:
        self.what = what
        super().__init__(f"no {what} {ident!r} of this seat in this game")


class WebhooksClosed(ServiceError, RuntimeError):
    """A subscription asked for in a game that has ended."""

    def __init__(self) -> None:
        super().__init__("this game has ended: its webhooks have ended with it")


class GameNotOver(ServiceError, RuntimeError):
    """Something only an ended game has (a rematch) asked of one still being played."""

    def __init__(self, game_id: str) -> None:
        super().__init__(f"game {game_id} is not over: a rematch is asked for once it has ended")
        self.game_id = game_id
