"""What the client raises: a refused request as the server's problem document."""

from __future__ import annotations

from typing import Any

import httpx

from .models import Problem

_STANDARD = frozenset({"type", "title", "status", "detail", "code", "params", "request_id"})


class CardroomError(Exception):
    """Every error of the client."""


class ProblemError(CardroomError):
    """A request the server refused: its ``application/problem+json`` fields.

    ``code`` and ``params`` are the stable ones (see docs/api.md, stable codes);
    ``extensions`` holds the members beyond RFC 9457's (``rule``, ``field``,
    ``current_version``, ``scope``…), ``retry_after`` the ``Retry-After`` header.
    """

    def __init__(self, problem: Problem, retry_after: float | None = None) -> None:
        self.problem = problem
        self.status = problem.status
        self.type = problem.type
        self.title = problem.title
        self.detail = problem.detail
        self.code = problem.code
        self.params: dict[str, Any] = dict(problem.params)
        self.request_id = problem.request_id
        self.extensions: dict[str, Any] = {
            k: v for k, v in problem.model_dump().items() if k not in _STANDARD and v is not None
        }
        self.retry_after = retry_after
        super().__init__(f"{self.status} {self.code}: {self.detail}")

    @classmethod
    def from_response(cls, response: httpx.Response) -> ProblemError:
        try:
            body = response.json()
        except ValueError:
            body = None
        if not isinstance(body, dict) or "type" not in body:
            body = {
                "type": "about:blank",
                "title": response.reason_phrase or "Error",
                "status": response.status_code,
                "detail": response.text[:200],
                "code": "http-error",
                "params": {},
            }
        body.setdefault("code", str(body["type"]).rsplit("/", 1)[-1])
        body.setdefault("params", {})
        body.setdefault("detail", "")
        body.setdefault("title", "")
        return cls(Problem.model_validate(body), retry_after_s(response))


class GaveUp(CardroomError):
    """The server did not answer (or kept refusing for capacity) for longer than
    the client's ``retry_for_s``; the last cause is ``__cause__``."""


def retry_after_s(response: httpx.Response) -> float | None:
    """``Retry-After`` in seconds (RFC 9110 delay-seconds), or None."""
    value = response.headers.get("Retry-After")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None
