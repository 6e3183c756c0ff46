"""``/rules`` and ``/rules/<game>``: the rules of each game as a page, in the player's
language when a translation exists.

A player reads ``docs/play/<game>.md`` (English) or ``docs/play/<lang>/<game>.md``
(a translation): the rules in plain words, with no code. ``?reference=1`` shows
the engine's reference text instead, ``docs/rules/[<lang>/]<game>.md``, which
developers read (move bodies, events, views, the bots). Both are rendered by
:mod:`service.web.markdown`. The language is the
first of: ``?lang=``, the ``cardroom.lang`` cookie the pages set when a player
picks a language, the browser's ``Accept-Language``; else English. A language
cardroom does not speak is passed over; a language without a translation of
these rules shows the English text, saying so in the player's language.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Final

from flask import Request, Response, render_template

from .markdown import Links, Rendered, docs_dir, render, site_links

GAMES: Final = ("hazari", "azi", "murlan")
LANGUAGES: Final = ("en", "ru", "hu", "bg", "sq", "ne")
"""The languages of the pages (service/web/static/js/i18n.js), English first."""
LANG_COOKIE: Final = "cardroom.lang"
PROBLEM_TYPE: Final = "https://cardroom.dev/problems/"
PROBLEM_MIME: Final = "application/problem+json"


def choose_language(request: Request) -> str:
    """The player's language: ``?lang=``, the cookie, ``Accept-Language``, else English."""
    for asked in (request.args.get("lang"), request.cookies.get(LANG_COOKIE)):
        if asked in LANGUAGES:
            return asked
    best = request.accept_languages.best_match(LANGUAGES)
    return best or "en"


def rules_file(game: str, lang: str, reference: bool = False) -> tuple[Path, str]:
    """The rules document to show for ``game`` in ``lang`` (the players' text, or
    the engine's reference) and the language it is in."""
    rules = docs_dir() / ("rules" if reference else "play")
    if lang != "en":
        translated = rules / lang / f"{game}.md"
        if translated.is_file():
            return translated, lang
    return rules / f"{game}.md", "en"


GAME_LINK: Final = re.compile(r"^(\.\./)?(hazari|azi|murlan)\.md(#[\w-]*)?$")


def rules_links(text_lang: str, reference: bool) -> Links:
    """A rules document's links to the games' documents lead to their pages: a
    translation's ``../<game>.md`` to the English page, ``<game>.md`` to the page
    in the document's language; of the same kind (for players, or the reference)."""

    def link(href: str) -> str | None:
        found = GAME_LINK.match(href)
        if found is None:
            return site_links(href)
        up, game, anchor = found.groups()
        query = [f"lang={'en' if up else text_lang}"] + (["reference=1"] if reference else [])
        return f"/rules/{game}?{'&'.join(query)}{anchor or ''}"

    return link


@cache
def _rendered(path: Path, mtime_ns: int, text_lang: str, reference: bool) -> Rendered:
    return render(path.read_text(encoding="utf-8"), rules_links(text_lang, reference))


def rendered(path: Path, text_lang: str = "en", reference: bool = False) -> Rendered:
    """``path`` rendered, kept until the file changes."""
    return _rendered(path, path.stat().st_mtime_ns, text_lang, reference)


CATALOGS: Final = Path(__file__).resolve().parent / "static" / "i18n"


@cache
def catalog(lang: str, area: str) -> dict[str, str]:
    """The pages' message catalog of ``area`` in ``lang`` (English beneath it)."""
    messages: dict[str, str] = {}
    for source in dict.fromkeys(("en", lang)):
        path = CATALOGS / source / f"{area}.json"
        if path.is_file():
            messages.update(json.loads(path.read_text(encoding="utf-8")))
    return messages


def message(lang: str, area: str, key: str, **params: str) -> str:
    """A message without plurals of the catalogs, its ``{name}`` placeholders filled."""
    text = catalog(lang, area)[key]
    for name, value in params.items():
        text = text.replace("{" + name + "}", value)
    return text


def no_such_game(game: str, request: Request) -> Response | str:
    """A game cardroom does not have: for a browser, a page in the reader's language
    listing the games (status 404); for a client asking JSON, a 404 problem."""
    asked = request.accept_mimetypes.best_match(["text/html", "application/json", PROBLEM_MIME])
    if asked != "text/html":
        body = {
            "type": PROBLEM_TYPE + "rules-not-found",
            "title": "No such game",
            "status": 404,
            "detail": f"there are no rules of {game!r}; the games are {', '.join(GAMES)}",
            "field": "game",
            "code": "rules-not-found",
            "params": {"game": game},
        }
        return Response(json.dumps(body), status=404, mimetype=PROBLEM_MIME)
    lang = choose_language(request)
    asked_lang = request.args.get("lang")
    query = f"?lang={asked_lang}" if asked_lang in LANGUAGES else ""
    return render_template(
        "rules.html",
        lang=lang,
        text_lang=lang,
        game=None,
        games=GAMES,
        names=NAMES,
        doc=None,
        query=query,
        reference=False,
        reference_query="",
        missing=game,
        title=message(lang, "rules", "rules.notFoundPageTitle"),
        missing_text=message(lang, "rules", "rules.notFound", game=game),
        index_title=message(lang, "rules", "rules.indexTitle"),
    )


NAMES: Final = {"hazari": "Hazari Lite", "azi": "Azi", "murlan": "Murlan"}
"""The games' names in English (the page's script puts the player's language in)."""


def rules_page(game: str | None, request: Request) -> Response | str:
    """The page of ``game``'s rules, or of the list of games for ``None``; for a game
    cardroom does not have, :func:`no_such_game` (404)."""
    if game is not None and game not in GAMES:
        return no_such_game(game, request)
    lang = choose_language(request)
    reference = request.args.get("reference") == "1"
    doc, text_lang = None, lang
    if game is not None:
        path, text_lang = rules_file(game, lang, reference)
        doc = rendered(path, text_lang, reference)
    asked = request.args.get("lang")
    query = f"?lang={asked}" if asked in LANGUAGES else ""
    return render_template(
        "rules.html",
        lang=lang,
        text_lang=text_lang,
        game=game,
        games=GAMES,
        names=NAMES,
        doc=doc,
        query=query,
        reference=reference,
        reference_query=(query + "&" if query else "?") + "reference=1",
    )
