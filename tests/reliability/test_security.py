"""Security review, as tests: token checks, secrets in answers and logs, the pages, CORS.

- A seat token is checked by comparing SHA-256 digests with
  ``hmac.compare_digest``, against every seat of the game (no early exit),
  on every path that accepts a token; nothing else compares tokens. (The
  code path is checked; a statistical timing test would only be flaky.)
- No hidden card and no unrevealed server seed in any answer, error or log
  line, and no seat token in any log line, while a game is played and
  hostile requests are thrown at it.
- The web pages never parse data as HTML: no HTML sinks in the served
  scripts and pages, and a hostile name is never written into served HTML.
- CORS is off unless ``CARDROOM_CORS_ORIGINS`` names origins.
"""

from __future__ import annotations

import ast
import hashlib
import hmac
import inspect
import json
import logging
import random
import re
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from service import games as games_module
from service import seataccess
from service.api import events, games, moves, replays, views
from service.config import load_settings
from service.games import GameService
from service.web import STATIC

from .conftest import Seated, bearer, make_app, seat_table

ROOT = Path(__file__).resolve().parents[2]
CARD = re.compile(r"\b(?:[2-9TJQKA][CDHS]|BJ|RJ)\b")


def cards_in(text: str, game_id: str) -> set[str]:
    """The card names in ``text`` (the game's id taken out: ``-AS-`` may occur in one)."""
    return set(CARD.findall(text.replace(game_id, "")))


# -- tokens ---------------------------------------------------------------------------------
def test_token_checks_compare_digests_in_constant_time(
    murlan: Seated, service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both ways a token is checked go through ``hmac.compare_digest`` over SHA-256
    hex digests, once per seat, whatever the token."""
    compared: list[tuple[bytes, bytes]] = []
    real = hmac.compare_digest

    def spy(a: bytes, b: bytes) -> bool:
        compared.append((a, b))
        return real(a, b)

    monkeypatch.setattr(hmac, "compare_digest", spy)
    gid = murlan.game_id

    def by_authenticate(token: str) -> int | None:
        return service.authenticate(gid, token, required=True)

    def by_seat_and_state(token: str) -> int | None:
        return service.seat_and_state(gid, token)[0]

    def by_seat_for_move(token: str) -> int | None:
        # the seats' hashes as the load above cached them; a token not among
        # them is looked for again among the stored ones
        return service.seat_for_move(gid, token)[0]

    for token in (murlan.tokens[2], "not a token", murlan.tokens[0] + "x"):
        digest = hashlib.sha256(token.encode()).hexdigest().encode()
        for check in (by_authenticate, by_seat_and_state, by_seat_for_move):
            compared.clear()
            try:
                seat = check(token)
            except games_module.Forbidden:
                seat = None
            assert seat == (2 if token == murlan.tokens[2] else None)
            rounds = 2 if check is by_seat_for_move and seat is None else 1
            assert len(compared) == 4 * rounds, "every seat's digest is compared, found or not"
            assert all(sent == digest for _, sent in compared)  # the token's digest…
            assert all(len(stored) == 64 for stored, _ in compared)  # …against a stored one


def _compares_a_secret(tree: ast.AST) -> list[int]:
    """Lines where ``==``/``!=`` touches a name that holds a token or a digest of one."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and any(
            isinstance(op, ast.Eq | ast.NotEq) for op in node.ops
        ):
            for side in (node.left, *node.comparators):
                name = getattr(side, "id", None) or getattr(side, "attr", None) or ""
                if "token" in name.lower() or name.lower() in ("digest", "token_hash"):
                    lines.append(node.lineno)
    return lines


TOKEN_HANDLERS = (
    "service/games.py",
    "service/seataccess.py",
    "service/repository.py",
    "service/store",
    "service/api",
    "service/web",
    "workers",
)


def test_nothing_else_compares_tokens() -> None:
    paths = [ROOT / p for p in TOKEN_HANDLERS]
    for path in [f for p in paths for f in ([p] if p.is_file() else sorted(p.rglob("*.py")))]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        assert not _compares_a_secret(tree), f"{path}: a token compared with == or !="
    for view in (games.get_game, moves.submit_move, events.events, replays.replay):
        source = inspect.getsource(view)
        assert any(
            f in source
            for f in ("authenticate(", "seat_and_state(", "seat_for_move(", "view_json(")
        )
    assert "seat_and_state(" in inspect.getsource(views.view_json)
    assert "compare_digest" in inspect.getsource(seataccess.match_token)
    assert "hash_token" in inspect.getsource(seataccess.match_token)


# -- secrets in answers, errors and logs -------------------------------------------------------
def test_no_hidden_card_seed_or_token_in_answers_errors_or_logs(
    client: FlaskClient, service: GameService, caplog: pytest.LogCaptureFixture
) -> None:
    """A Murlan game played through HTTP with hostile requests between the moves."""
    caplog.set_level(logging.DEBUG)
    rng = random.Random(3)
    t = seat_table(client, service, "murlan")
    seed = service.store.get_secret(t.game_id)
    assert seed is not None
    answers = 0
    for _ in range(60):
        service.advance(t.game_id)
        acting = t.to_act()
        if not acting:
            break
        seat, idle = acting[0], t.idle()
        mine = set(t.hand(seat))
        theirs = {c for other in range(4) if other != seat for c in t.hand(other)}
        hostile: list[dict[str, Any]] = [
            {"action": "play", "cards": [rng.choice(sorted(theirs))]},
            {"action": "play", "cards": ["9X"]},
            {"action": "give_back", "card": rng.choice(sorted(theirs))},
        ]
        for move in hostile:
            r = t.move(seat, {"move": move})
            assert r.status_code == 422
            sent = cards_in(json.dumps(move), t.game_id)
            assert cards_in(r.get_data(as_text=True), t.game_id) <= sent | mine
            answers += 1
        r = t.move(idle, {"move": {"action": "pass"}})  # another seat's token
        assert r.status_code == 422 and not cards_in(r.get_data(as_text=True), t.game_id) & theirs
        view = t.view(seat)
        public = client.get(f"/games/{t.game_id}").get_data(as_text=True)
        for text in (json.dumps(view), public):
            assert seed.hex() not in text
            assert not any(token in text for token in t.tokens)
        shown = cards_in(json.dumps(view), t.game_id)
        assert not shown & theirs - cards_in(public, t.game_id), "a view shows another's card"
        move = rng.choice(view["legal_moves"])
        assert t.move(seat, {"move": move, "expected_version": view["version"]}).status_code == 201
        answers += 3
    logged = caplog.text + "\n".join(r.getMessage() for r in caplog.records)
    assert answers > 100 and "request" in logged
    assert seed.hex() not in logged
    for token in t.tokens:
        assert token not in logged
        assert hashlib.sha256(token.encode()).hexdigest() not in logged
    assert not cards_in(logged, t.game_id), "a card in a log line"


def test_an_error_the_server_did_not_expect_reveals_nothing(
    murlan: Seated, service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 500 says nothing of what failed: no exception text, no state."""
    seat = murlan.to_act()[0]
    hand = murlan.hand(seat)

    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError(f"internal state {hand} {murlan.tokens}")

    monkeypatch.setattr(service, "submit_move", broken)
    r = murlan.move(seat, {"move": {"action": "pass"}})
    assert r.status_code == 500
    text = r.get_data(as_text=True)
    assert "internal state" not in text and not CARD.findall(text)
    assert not any(token in text for token in murlan.tokens)


# -- the web pages ----------------------------------------------------------------------------
SINKS = (
    "innerHTML",
    "outerHTML",
    "insertAdjacentHTML",
    "document.write",
    "createContextualFragment",
    "DOMParser",
    "srcdoc",
    "eval(",
    "new Function",
    "javascript:",
)


def test_served_scripts_and_pages_have_no_html_sinks(client: FlaskClient) -> None:
    served = [f"/web/static/js/{p.name}" for p in sorted((STATIC / "js").glob("*.js"))]
    served += ["/", "/table/abc", "/replay/abc", "/fairness"]
    assert len(served) > 5
    for path in served:
        r = client.get(path)
        assert r.status_code == 200, path
        text = r.get_data(as_text=True)
        for sink in SINKS:
            assert sink not in text, f"{path} uses {sink}"


def test_a_hostile_name_is_data_not_markup(client: FlaskClient) -> None:
    name = "<img src=x onerror=alert(1)>"
    gid = client.post("/games", json={"game": "murlan"}).get_json()["game_id"]
    assert client.post(f"/games/{gid}/seats", json={"name": name}).status_code == 201
    view = client.get(f"/games/{gid}")
    assert view.mimetype == "application/json"
    assert view.headers["X-Content-Type-Options"] == "nosniff"
    assert view.get_json()["seats"][0]["name"] == name
    for page in (f"/table/{gid}", f"/replay/{gid}", "/"):
        r = client.get(page)
        assert "onerror" not in r.get_data(as_text=True)
        assert "script-src 'self'" in r.headers["Content-Security-Policy"]


# -- CORS ---------------------------------------------------------------------------------------
def _cors_headers(client: FlaskClient, origin: str) -> list[dict[str, str]]:
    gid = client.post("/games", json={"game": "murlan"}).get_json()["game_id"]
    answers = [
        client.get(f"/games/{gid}", headers={"Origin": origin}),
        client.post("/games", json={"game": "murlan"}, headers={"Origin": origin}),
        client.options(
            "/games",
            headers={
                "Origin": origin,
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "Authorization, Content-Type",
            },
        ),
        client.get("/healthz", headers={"Origin": origin}),
    ]
    return [
        {k: v for k, v in r.headers.items() if k.lower().startswith("access-control")}
        for r in answers
    ]


def test_cors_is_off_by_default(client: FlaskClient) -> None:
    assert load_settings().cors_origins == ""
    for headers in _cors_headers(client, "https://evil.example"):
        assert headers == {}


def test_cors_allows_only_the_configured_origins() -> None:
    settings = load_settings(cors_origins="https://tables.example")
    client = make_app(settings, RATELIMIT_ENABLED=False).test_client()
    for headers in _cors_headers(client, "https://evil.example"):
        assert headers == {}
    allowed = _cors_headers(client, "https://tables.example")
    assert all(h["Access-Control-Allow-Origin"] == "https://tables.example" for h in allowed)


def test_views_are_never_cached(murlan: Seated, client: FlaskClient) -> None:
    r = client.get(f"/games/{murlan.game_id}", headers=bearer(murlan.tokens[0]))
    assert r.headers["Cache-Control"] == "no-store"
