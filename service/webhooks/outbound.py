"""One HTTP attempt of a delivery: to the address checked, briefly, reading little.

The request goes to the address :func:`service.webhooks.urls.check` found (the
host name in ``Host`` and, for ``https``, in the TLS server name, so the
certificate is checked against it), within ``timeout_s`` in all, reading at
most ``max_reply`` bytes of the reply. Redirects are not followed unless the
operator allows some; each one followed is checked as the URL was, before
anything connects to it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import httpx

from service.errors import WebhookUrlRefused

from .urls import Policy, Resolver, Target, check, system_resolver

logging.getLogger("httpx").setLevel(logging.WARNING)  # its INFO line names the receiver's URL
logging.getLogger("httpcore").setLevel(logging.WARNING)

REPLY_KEPT = 256
"""Bytes of a reply the delivery log keeps."""


@dataclass(frozen=True, slots=True)
class Attempt:
    """What one attempt got."""

    status: int | None
    """The HTTP status; ``None`` when no answer came."""
    seconds: float
    reply: bytes = b""
    error: str | None = None
    """Why it failed without a status: ``timeout``, ``connect``, ``blocked``…"""

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


@dataclass
class Outbound:
    """How this process calls receivers: the resolver, the transport, the rules."""

    policy: Policy = field(default_factory=Policy)
    resolve: Resolver = system_resolver
    transport: Callable[[], httpx.BaseTransport] = httpx.HTTPTransport
    timeout_s: float = 5.0
    max_reply: int = 4096
    follow_redirects: int = 0
    _client: httpx.Client | None = field(default=None, init=False, repr=False)

    def check(self, url: str) -> Target:
        return check(url, self.policy, self.resolve)

    def client(self) -> httpx.Client:
        if self._client is None:
            self._client = httpx.Client(
                transport=self.transport(), follow_redirects=False, trust_env=False
            )
        return self._client

    def send(self, url: str, body: bytes, headers: dict[str, str]) -> Attempt:
        """POST ``body`` to ``url`` (checked first, and each redirect followed)."""
        started = time.monotonic()
        try:
            target = self.check(url)
        except WebhookUrlRefused as exc:
            return Attempt(None, 0.0, error=f"blocked: {exc.reason}")
        hops = 0
        while True:
            attempt, location = self._post(target, body, headers, started)
            if location is None or hops >= self.follow_redirects:
                return attempt
            hops += 1
            try:
                target = self.check(str(httpx.URL(target.url).join(location)))
            except WebhookUrlRefused as exc:
                elapsed = time.monotonic() - started
                return Attempt(attempt.status, elapsed, attempt.reply, f"blocked: {exc.reason}")

    def _post(
        self, target: Target, body: bytes, headers: dict[str, str], started: float
    ) -> tuple[Attempt, str | None]:
        left = max(0.05, self.timeout_s - (time.monotonic() - started))
        extensions = {"sni_hostname": target.host} if target.scheme == "https" else {}
        request = self.client().build_request(
            "POST",
            target.connect_url,
            content=body,
            headers={
                **headers,
                "Host": target.host_header,
                "Content-Type": "application/json",
                "User-Agent": "cardroom-webhooks/1",
            },
            timeout=httpx.Timeout(left),
            extensions=extensions,
        )
        try:
            response = self.client().send(request, stream=True)
        except httpx.TimeoutException:
            return Attempt(None, time.monotonic() - started, error="timeout"), None
        except httpx.HTTPError as exc:
            return Attempt(None, time.monotonic() - started, error=_error(exc)), None
        try:
            reply = self._read(response, started)
        except httpx.TimeoutException:
            return Attempt(response.status_code, time.monotonic() - started, error="timeout"), None
        except httpx.HTTPError as exc:
            attempt = Attempt(response.status_code, time.monotonic() - started, error=_error(exc))
            return attempt, None
        finally:
            response.close()
        elapsed = time.monotonic() - started
        location = response.headers.get("Location") if response.is_redirect else None
        error = "redirect not followed" if response.is_redirect else None
        return Attempt(response.status_code, elapsed, reply[:REPLY_KEPT], error), location

    def _read(self, response: httpx.Response, started: float) -> bytes:
        """At most :attr:`max_reply` bytes of the reply, within the time left."""
        got = bytearray()
        for chunk in response.iter_raw():
            got += chunk
            if len(got) >= self.max_reply or time.monotonic() - started > self.timeout_s:
                break
        return bytes(got[: self.max_reply])

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None


def _error(exc: httpx.HTTPError) -> str:
    if isinstance(exc, httpx.ConnectError):
        return "connect"
    return type(exc).__name__.lower()
