"""Schemathesis' stateful run against the app: sequences of calls, chained by the links
it infers from the OpenAPI document (``game_id`` of ``POST /games`` into every
``/games/{game_id}/…`` operation).

On top of schemathesis' own checks (no 5xx, every status, header and body as
documented), every call aimed at a game is bracketed: the game's keys are
dumped before it, and if it is refused they must be exactly as they were.
Seats taken along the way hand their tokens to later calls (now the right
seat's, now another game's), and some moves are swapped for one of the
seat's legal moves, so sequences reach the engines and the games move on.
Bounded: a fixed number of derandomized scenarios, about a minute here.
"""

from __future__ import annotations

import contextlib
import random
from collections import Counter
from typing import Any, ClassVar

import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from service.config import load_settings
from service.games import GameService
from service.store import StoreError, keys
from tests.testredis import client_of

from .conftest import make_app

# No worker runs here, and the follow-up markers and drain slots a request leaves
# are leased for the longest time allowed: none expires between the dumps that
# bracket a call (an expiry is not the call's change). The deal is taken by
# ``SERVICE.advance`` before each call aimed at a game.
APP = make_app(
    load_settings(stream_keepalive_s=0.2, bot_delay_s=0, followup_lease_s=300),
    RATELIMIT_ENABLED=False,
)
SERVICE: GameService = APP.extensions["cardroom"]
CLIENT = APP.test_client()
# The webhook operations have their own suite (tests/webhooks) and the stateless run
# (tests/api/test_schemathesis.py): among them, the derandomized sequences here
# spent every step on webhooks of games that do not exist and never took a seat.
SCHEMA = schemathesis.openapi.from_wsgi("/openapi.json", APP).exclude(path_regex="/webhooks")
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]


def game_keys(game_id: str) -> dict[bytes, Any]:
    """Every key of one game with its whole value."""
    redis = client_of(SERVICE.store)
    out: dict[bytes, Any] = {}
    for key in redis.scan_iter(match=f"cardroom:{{{game_id}}}:*"):
        if b":talk:gap:" in key:
            continue  # a seat's gap between messages, which expires by itself mid-sequence
        kind = redis.type(key)
        if kind == b"stream":
            out[key] = redis.xrange(key)
        elif kind == b"hash":
            out[key] = redis.hgetall(key)
        else:
            out[key] = redis.dump(key)
    return out


class Hostile(SCHEMA.as_state_machine()):  # type: ignore[misc]
    tokens: ClassVar[dict[str, list[str]]] = {}
    rng: ClassVar[random.Random] = random.Random(1)
    seen: ClassVar[Counter[str]] = Counter()
    """Calls by operation and status."""
    refusals: ClassVar[int] = 0
    """Refused calls after which the game's keys were compared (and found unchanged)."""

    def setup(self) -> None:
        self.before: dict[bytes, Any] | None = None
        self.game_id: str | None = None

    def before_call(self, case: schemathesis.Case[Any]) -> None:
        headers = case.headers
        headers.pop("Accept", None)  # a live stream of a game nobody plays never ends
        game_id = (case.path_parameters or {}).get("game_id")
        self.game_id = game_id if isinstance(game_id, str) else None
        if self.game_id is None or not keys.GAME_ID_RE.fullmatch(self.game_id):
            self.before = None
            return
        if self.game_id not in self.tokens and self.rng.random() < 0.5:
            self._fill(self.game_id)
        if self.game_id in self.tokens:
            # the workers' steps (the deal, bots' moves) now: so that the moves below can land
            with contextlib.suppress(StoreError):
                SERVICE.advance(self.game_id)
        self.before = game_keys(self.game_id)
        mine = self.tokens.get(self.game_id, [])
        others = [t for g, ts in self.tokens.items() if g != self.game_id for t in ts]
        pick = self.rng.random()
        token = None
        if mine and pick < 0.6:
            token = self.rng.choice(mine)
        elif others and pick < 0.75:
            token = self.rng.choice(others)
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
            if case.path.endswith("/moves") and self.rng.random() < 0.4:
                self._legal(case, token)

    def _legal(self, case: schemathesis.Case[Any], token: str) -> None:
        """Swap the generated move for one this seat may make now (if any)."""
        view = CLIENT.get(f"/games/{self.game_id}", headers={"Authorization": f"Bearer {token}"})
        legal = (view.get_json() or {}).get("legal_moves") if view.status_code == 200 else None
        if legal and isinstance(case.body, dict):
            body = {**case.body, "move": self.rng.choice(legal)}
            if self.rng.random() < 0.5:
                body["expected_version"] = view.get_json()["version"]
            else:
                body.pop("expected_version", None)
            case.body = body

    def after_call(self, response: Any, case: schemathesis.Case[Any]) -> None:
        status = response.status_code
        self.seen[f"{case.method} {case.operation.path} {status}"] += 1
        if case.path.endswith("/seats") and status == 201:
            body = response.json()
            if body.get("token"):
                self.tokens.setdefault(body["game_id"], []).append(body["token"])
        if self.before is not None and self.game_id is not None and 400 <= status < 500:
            after = game_keys(self.game_id)
            assert after == self.before, f"a refused {case.method} {case.path} changed the game"
            Hostile.refusals += 1

    def _fill(self, game_id: str) -> None:
        """Other players take the free seats (so the cards are dealt and moves may land)."""
        while True:
            r = CLIENT.post(f"/games/{game_id}/seats", json={"name": "other"})
            if r.status_code != 201:
                return
            self.tokens.setdefault(game_id, []).append(r.get_json()["token"])

    def validate_response(
        self, response: Any, case: schemathesis.Case[Any], *args: Any, **kwargs: Any
    ) -> None:
        case.validate_response(response, checks=CHECKS)


def test_stateful_sequences_leave_refusals_without_effect() -> None:
    Hostile.run(
        settings=settings(
            max_examples=70,
            stateful_step_count=12,
            deadline=None,
            derandomize=True,
            suppress_health_check=list(HealthCheck),
        )
    )
    seen = Hostile.seen
    assert Hostile.tokens, "no seat was ever taken: the sequences did not chain"
    assert seen["POST /games/{game_id}/moves 201"], "no move was ever accepted"
    assert not [k for k in seen if k.endswith(("500", "502", "503"))]
    print(f"\nFIGURES stateful: calls={seen.total()}, refusals_checked={Hostile.refusals}")
    print("\n".join(f"  {k}: {n}" for k, n in sorted(seen.items())))
