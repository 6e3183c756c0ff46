"""Receiving cardroom's webhooks: check a delivery's signature, and a small receiver.

This module needs nothing but Python's standard library, so a bot or a chat
bridge can use it as it is (or copy :func:`verify_signature`, a dozen lines).

Every delivery is a ``POST`` of a JSON body with two headers:

- ``Cardroom-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>." + raw body)>``
- ``Cardroom-Delivery: <delivery id>`` (the same on every attempt and redelivery)

Check the signature against the *raw* body, the bytes as received, before
parsing it: a body parsed and serialised again is not the body that was
signed. Refuse a timestamp more than :data:`TOLERANCE_S` seconds from your
clock, so a captured delivery cannot be replayed later.

Run ``python -m service.webhooks.receiver --port 8080`` with the subscription's
secret in ``CARDROOM_WEBHOOK_SECRET``: it prints ``your turn at …`` for each
verified ``turn_started`` and answers 400 to anything it cannot verify.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import os
import sys
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Final, TextIO

TOLERANCE_S: Final = 300
"""How far a delivery's timestamp may be from the receiver's clock."""
SIGNATURE_HEADER: Final = "Cardroom-Signature"
DELIVERY_HEADER: Final = "Cardroom-Delivery"
MAX_BODY: Final = 64 * 1024


def signature(secret: str, timestamp: int, raw_body: bytes) -> str:
    """The hex HMAC-SHA256 of ``"<timestamp>." + raw_body`` under ``secret``."""
    signed = str(int(timestamp)).encode() + b"." + raw_body
    return hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()


def signature_header(secret: str, timestamp: int, raw_body: bytes) -> str:
    """The ``Cardroom-Signature`` header's value for ``raw_body`` sent at ``timestamp``."""
    return f"t={int(timestamp)},v1={signature(secret, timestamp, raw_body)}"


def verify_signature(
    secret: str,
    header: str | None,
    raw_body: bytes,
    tolerance: int = TOLERANCE_S,
    now: float | None = None,
) -> bool:
    """Whether ``header`` (``Cardroom-Signature``) signs ``raw_body`` with ``secret``,
    at a time at most ``tolerance`` seconds from ``now`` (default: this clock)."""
    if not header:
        return False
    fields = [part.strip().partition("=") for part in header.split(",")]
    stamps = [value for key, _, value in fields if key == "t"]
    given = [value for key, _, value in fields if key == "v1"]
    if len(stamps) != 1 or not stamps[0].isdigit() or not given:
        return False
    timestamp = int(stamps[0])
    if abs((time.time() if now is None else now) - timestamp) > tolerance:
        return False
    expected = signature(secret, timestamp, raw_body)
    return any(hmac.compare_digest(expected, value) for value in given)


def describe(payload: dict[str, Any]) -> str:
    """One line for a person: ``your turn at …`` for ``turn_started``."""
    event = payload.get("event")
    where = payload.get("url") or payload.get("game_id")
    if event == "turn_started":
        line = f"your turn at {where} (seat {payload.get('seat')})"
        if payload.get("deadline_at"):
            line += f", before {payload['deadline_at']}"
        return line
    return f"{event} at {where}"


def handler(
    secret: str, out: TextIO = sys.stdout, tolerance: int = TOLERANCE_S
) -> type[BaseHTTPRequestHandler]:
    """A request handler that verifies each delivery and prints what it says."""

    class Receiver(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(min(length, MAX_BODY))
            if not verify_signature(secret, self.headers.get(SIGNATURE_HEADER), raw, tolerance):
                self._answer(400, b"bad signature")
                return
            print(describe(json.loads(raw)), file=out, flush=True)
            self._answer(204, b"")

        def _answer(self, status: int, text: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Length", str(len(text)))
            self.end_headers()
            self.wfile.write(text)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Receiver


def serve(secret: str, host: str, port: int, out: TextIO = sys.stdout) -> ThreadingHTTPServer:
    """The example receiver, bound (call ``serve_forever`` on it)."""
    return ThreadingHTTPServer((host, port), handler(secret, out))


def main(argv: list[str] | None = None, ready: Callable[[int], None] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m service.webhooks.receiver",
        description="Print 'your turn at …' for each verified cardroom turn webhook.",
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8080)
    args = parser.parse_args(argv)
    secret = os.environ.get("CARDROOM_WEBHOOK_SECRET")
    if not secret:
        print("set CARDROOM_WEBHOOK_SECRET to the subscription's secret", file=sys.stderr)
        return 2
    server = serve(secret, args.host, args.port)
    if ready is not None:
        ready(server.server_address[1])
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
