"""Smoke test of a running deploy, on the standard library alone (it runs in the image).

    python smoke_client.py BASE_URL [STREAMS_URL]

Asks ``/healthz``, the rules page and ``/fairness`` (the documents the
package carries), opens a table of four bots, follows its live event stream
(``STREAMS_URL``, else ``BASE_URL``: behind the front, nginx sends it to the
stream server) until the game has ended, and checks the ended game verifies.
A game only ends if the workers play the bots' turns. Exits 0 when all holds,
else with a message saying what did not. deploy/smoke.sh runs it inside the
API's container; tests/product/test_production_install.py runs it against a
production install.
"""

from __future__ import annotations

import json
import sys
import time
import urllib.request
from typing import Any

GAME = {"game": "hazari", "options": {"target": 360}}
GAME_TIMEOUT_S = 120
READ_TIMEOUT_S = 30


def call(base: str, method: str, path: str, body: Any = None) -> Any:
    """One JSON request; its decoded reply (an HTTP error status raises)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        base + path, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as reply:
        return json.load(reply)


def page(base: str, path: str) -> None:
    with urllib.request.urlopen(base + path, timeout=10) as reply:
        if reply.status != 200:
            raise SystemExit(f"smoke: {path} answered {reply.status}")


def follow_to_the_end(streams: str, game_id: str) -> int:
    """Read the game's live stream until the server closes it (the game has ended);
    how many lines came."""
    request = urllib.request.Request(
        f"{streams}/games/{game_id}/events", headers={"Accept": "application/x-ndjson"}
    )
    deadline = time.monotonic() + GAME_TIMEOUT_S
    lines = 0
    with urllib.request.urlopen(request, timeout=READ_TIMEOUT_S) as stream:
        for _line in stream:
            lines += 1
            if time.monotonic() > deadline:
                raise SystemExit(f"smoke: game {game_id} did not end in {GAME_TIMEOUT_S} s")
    return lines


def main(argv: list[str]) -> int:
    if len(argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    base = argv[1].rstrip("/")
    streams = argv[2].rstrip("/") if len(argv) == 3 else base
    if call(base, "GET", "/healthz").get("status") != "ok":
        raise SystemExit("smoke: /healthz is not ok")
    page(base, "/rules/hazari")
    page(base, "/fairness")
    game = call(base, "POST", "/games", GAME)
    game_id = game["game_id"]
    for seat in range(game["seats"]):
        call(base, "POST", f"/games/{game_id}/seats", {"name": f"bot{seat}", "bot": True})
    lines = follow_to_the_end(streams, game_id)
    view = call(base, "GET", f"/games/{game_id}")
    if view["status"] != "ended" or not view.get("server_seed"):
        raise SystemExit(f"smoke: game {game_id} is {view['status']} after its stream closed")
    if call(base, "GET", f"/games/{game_id}/verify").get("verified") is not True:
        raise SystemExit(f"smoke: game {game_id} does not verify")
    print(f"smoke: game {game_id} played to its end ({lines} stream lines) and verified")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
