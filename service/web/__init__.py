"""The web front end: a lobby, a table page for a seat and a replay viewer.

Plain HTML, CSS and JavaScript modules served by the Flask app itself from
``static/`` (no build step, nothing fetched from elsewhere). The pages talk
to the public HTTP API only; a seat's token is kept in the browser's
``localStorage``, never in a URL the server sees (a seat link carries it in the
fragment). See ``docs/web.md``.
"""

from __future__ import annotations

import logging
from functools import cache
from pathlib import Path
from typing import Final

from flask import Blueprint, Response, current_app, request

from . import rules
from .markdown import docs_dir, render

STATIC: Final = Path(__file__).resolve().parent / "static"

CSP: Final = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)

FAIRNESS_FALLBACK: Final = """\
# Fairness: how to verify every shuffle

Every deck comes from cardroom-shuffle-v1. When a game is created the server
publishes commitment = sha256(server_seed); each seat adds a client_seed (a
bot's, or one a player did not send, is hex(HMAC-SHA256(server_seed,
"client-seed:<seat>"))[:32], fixed by the commitment); when the game ends the
server publishes server_seed.

To check a finished game yourself:

1. `GET /games/<id>/replay` and keep the JSON document.
2. Check `sha256(bytes.fromhex(server_seed)) == commitment`.
3. For every deal d, rebuild the byte stream

        Bk = HMAC-SHA256(key=server_seed,
                         msg="cardroom-shuffle-v1:<game_id>:<d>:<seed0>:<seed1>...:<k>")

   draw(n) takes 4 big-endian bytes x, rejects x >= 2**32 - (2**32 % n),
   returns x % n; Fisher-Yates from the canonical deck order with
   j = draw(i + 1) for i from len(deck)-1 down to 1.
4. Deal the cards one at a time in the replay's deal_order and compare
   with deals[].hands.

`cardroom verify <file>` does all of this offline and also replays every
move; GET /games/<id>/verify asks the server to do the same.
"""

log = logging.getLogger("cardroom.web")

bp = Blueprint(
    "web",
    __name__,
    static_folder="static",
    static_url_path="/web/static",
    template_folder="templates",
)


@cache
def _page(name: str) -> str:
    return (STATIC / name).read_text(encoding="utf-8")


def _html(text: str) -> Response:
    response = Response(text, mimetype="text/html")
    response.headers["Content-Security-Policy"] = CSP
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["X-Frame-Options"] = "DENY"
    return response


@bp.get("/")
def lobby() -> Response:
    """Open and finished games; create a game, take a seat, add bots."""
    return _html(_page("lobby.html"))


CLOCK_HEADER: Final = "X-Cardroom-Clock-Ms"
"""The table page's header: Redis's time as the page was answered (ms), the
clock the turn deadlines are in; the page's countdown measures this device's
clock against it."""


@bp.get("/table/<game_id>")
def table_page(game_id: str) -> Response:
    """One seat's table (the game id is read by the script from the path)."""
    response = _html(_page("table.html"))
    service = current_app.extensions.get("cardroom")
    if service is not None:
        try:
            response.headers[CLOCK_HEADER] = str(service.store.now_ms())
        except Exception:  # Redis away: the page falls back on the Date header
            log.warning("table page: Redis's time not read")
    return response


@bp.get("/replay/<game_id>")
def replay_page(game_id: str) -> Response:
    """Step through a game's deals and moves; the shuffle's verification badge."""
    return _html(_page("replay.html"))


@bp.get("/verifier")
def verifier_page() -> Response:
    """The offline verifier: one self-contained file (``docs/verifier.html``) that
    checks a dropped replay document in the browser and makes no request."""
    from .offline import build, page_csp

    response = _html(build())
    response.headers["Content-Security-Policy"] = page_csp() + "; frame-ancestors 'none'"
    return response


@bp.get("/my-games")
def my_games_page() -> Response:
    """The games this browser holds a seat in, each with its result and a check."""
    return _html(_page("mine.html"))


@bp.get("/my-stats")
def my_stats_page() -> Response:
    """The player's own statistics, counted in the browser from the games it holds a
    seat in: games, wins, per game kind."""
    return _html(_page("stats.html"))


def fairness_text() -> str:
    """``docs/fairness.md`` (installed with the package, or the source tree's), else a
    summary."""
    try:
        return (docs_dir() / "fairness.md").read_text(encoding="utf-8")
    except OSError:
        return FAIRNESS_FALLBACK


@cache
def _fairness_document() -> str:
    doc = render(fairness_text())
    return _page("fairness-document.html").replace("<!--FAIRNESS-DOC-->", doc.html)


@bp.get("/fairness")
def fairness() -> Response:
    """The fairness report as figures, "my luck", how the report works in the reader's
    language, and how to check a shuffle yourself."""
    return _html(_page("fairness.html"))


@bp.get("/fairness/document")
def fairness_document() -> Response:
    """``docs/fairness.md`` in full (English, marked so), with the site's header."""
    return _html(_fairness_document())


@bp.get("/rules")
def rules_index() -> Response:
    """The games, each linked to its rules."""
    return _rules_response(rules.rules_page(None, request))


@bp.get("/rules/<game>")
def rules_page(game: str) -> Response:
    """A game's rules, rendered from docs/rules in the player's language (see
    :mod:`service.web.rules`); for a game cardroom does not have, a 404 page in the
    reader's language (a 404 problem for a client asking JSON)."""
    return _rules_response(rules.rules_page(game, request), game)


def _rules_response(page: Response | str, game: str | None = None) -> Response:
    if isinstance(page, Response):
        return page
    response = _html(page)
    if game is not None and game not in rules.GAMES:
        response.status_code = 404  # a page in the reader's language, for a missing game
    response.vary.update(("Accept", "Accept-Language", "Cookie"))
    return response
