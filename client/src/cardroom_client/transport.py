"""One request, sent until it has an answer worth returning (see :mod:`.retry`)."""

from __future__ import annotations

from typing import Any

import httpx

from .errors import GaveUp, ProblemError, retry_after_s
from .retry import RETRIED_STATUSES, TRANSPORT_ERRORS, Attempts, RetryPolicy

USER_AGENT = "cardroom-client/0.1"


def bearer(secret: str | None) -> dict[str, str]:
    return {} if secret is None else {"Authorization": f"Bearer {secret}"}


class Transport:
    """An ``httpx.Client`` with the retry policy: answers a 2xx/304 response or
    raises :class:`ProblemError` (or :class:`GaveUp`)."""

    def __init__(
        self,
        base_url: str,
        *,
        timeout_s: float = 10.0,
        policy: RetryPolicy | None = None,
        transport: httpx.BaseTransport | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.policy = policy or RetryPolicy()
        self.http = httpx.Client(
            base_url=base_url.rstrip("/"),
            timeout=timeout_s,
            transport=transport,
            headers={"User-Agent": USER_AGENT, **(headers or {})},
        )

    def close(self) -> None:
        self.http.close()

    def send(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        params: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        retry: bool = True,
    ) -> httpx.Response:
        attempts = Attempts(self.policy)
        query = {k: v for k, v in (params or {}).items() if v is not None}
        while True:
            try:
                response = self.http.request(method, path, json=json, params=query, headers=headers)
            except TRANSPORT_ERRORS as exc:
                if retry and attempts.backoff():
                    continue
                raise GaveUp(f"{method} {path}: no answer ({exc!r})") from exc
            if response.status_code < 400:
                return response
            error = ProblemError.from_response(response)
            if retry and self.retriable(error):
                if attempts.wait(self.pause_s(response)):
                    continue
                raise GaveUp(f"{method} {path}: still refused ({error})") from error
            raise error

    @staticmethod
    def retriable(error: ProblemError) -> bool:
        if error.code == "too-many-streams":
            return False  # capacity, not a rate: the stream's reader decides
        return error.status in RETRIED_STATUSES or error.code == "idempotency-key-in-use"

    def pause_s(self, response: httpx.Response) -> float:
        found = retry_after_s(response)
        return self.policy.default_retry_after_s if found is None else found
