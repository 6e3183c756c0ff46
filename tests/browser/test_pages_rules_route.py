"""``/rules`` and ``/rules/<game>`` as served (no browser needed): each game's rules
rendered from docs/rules, the language chosen by ``?lang=``, the cookie or
``Accept-Language``, and the Markdown renderer's safety."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.web import markdown
from service.web import rules as rules_module
from service.web.rules import GAMES

from .conftest import web_app

DOCS = Path(__file__).resolve().parents[2] / "docs"


@pytest.fixture
def app() -> Iterator[Flask]:
    yield web_app()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def translated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A docs/ with the English rules for players and a Russian translation of Murlan's."""
    rules = tmp_path / "play"
    (rules / "ru").mkdir(parents=True)
    for game in rules_module.GAMES:
        (rules / f"{game}.md").write_text((DOCS / "play" / f"{game}.md").read_text())
    (rules / "ru" / "murlan.md").write_text(
        "# Мурлан\n\n## Игроки и карты\n\n| карта | сила |\n|---|---|\n| 3 | низшая |\n"
    )
    monkeypatch.setattr(rules_module, "docs_dir", lambda: tmp_path)
    return tmp_path


def html_lang(text: str) -> str:
    found = re.search(r'<html lang="([^"]+)"', text)
    assert found, "no <html lang>"
    return found.group(1)


def article_lang(text: str) -> str:
    found = re.search(r'<article class="doc" id="rules-text" lang="([^"]+)"', text)
    assert found, "no rules text"
    return found.group(1)


@pytest.mark.parametrize(
    ("game", "title", "heading"),
    [
        ("hazari", "Hazari Lite", "The combinations"),
        ("azi", "Azi", "Paying out the pot"),
        ("murlan", "Murlan", "The exchange between hands"),
    ],
)
def test_each_games_rules_are_a_page_rendered_from_its_markdown(
    client: FlaskClient, game: str, title: str, heading: str
) -> None:
    r = client.get(f"/rules/{game}")
    assert r.status_code == 200 and r.mimetype == "text/html"
    assert "default-src 'self'" in r.headers["Content-Security-Policy"]
    text = r.get_data(as_text=True)
    assert html_lang(text) == "en" and article_lang(text) == "en"
    assert f"<h1>{title}</h1>" in text
    assert re.search(rf'<h2 id="[^"]+">{re.escape(heading)}</h2>', text)
    # every Markdown table is a real table inside its own scrolling box
    source = (DOCS / "play" / f"{game}.md").read_text()
    tables = len(re.findall(r"^\|[-| :]+\|$", source, re.MULTILINE))
    assert tables and text.count('<div class="table-scroll" tabindex="0"><table>') == tables
    assert "<th>" in text and "<td>" in text
    assert "| ---" not in text and "\n## " not in text  # no Markdown left raw
    assert f'href="/rules/{game}" data-i18n="common.game.{game}" aria-current="page"' in text
    assert "not-translated" not in text


@pytest.mark.parametrize(
    ("game", "developers"),
    [("hazari", "The auto-arranger"), ("azi", "The bot"), ("murlan", "Events")],
)
def test_players_read_plain_rules_and_developers_the_reference(
    client: FlaskClient, game: str, developers: str
) -> None:
    players = client.get(f"/rules/{game}").get_data(as_text=True)
    assert f">{developers}</h2>" not in players and "<code>" not in players
    assert f'<a href="/rules/{game}?reference=1" data-i18n="rules.forDevelopers">' in players
    reference = client.get(f"/rules/{game}?reference=1").get_data(as_text=True)
    assert f">{developers}</h2>" in reference and f"service/engines/{game}/" in reference
    assert f'<a href="/rules/{game}" data-i18n="rules.forPlayers">' in reference
    # a translation keeps its language in the links
    russian = client.get(f"/rules/{game}?lang=ru").get_data(as_text=True)
    assert article_lang(russian) == "ru" and "<code>" not in russian
    assert f'href="/rules/{game}?lang=ru&amp;reference=1"' in russian
    russian = client.get(f"/rules/{game}?lang=ru&reference=1").get_data(as_text=True)
    assert article_lang(russian) == "ru" and "service/engines/" in russian
    assert f'href="/rules/{game}?lang=ru" data-i18n="rules.forPlayers"' in russian


def test_the_rules_index_links_every_game(client: FlaskClient) -> None:
    text = client.get("/rules").get_data(as_text=True)
    for game in rules_module.GAMES:
        assert f'href="/rules/{game}"' in text


@pytest.mark.parametrize("game", ["chess", "Hazari", "hazari.md", "azi%20"])
def test_an_unknown_game_asked_as_json_is_a_404_problem(client: FlaskClient, game: str) -> None:
    r = client.get(f"/rules/{game}", headers={"Accept": "application/json"})
    assert r.status_code == 404 and r.mimetype == "application/problem+json"
    body = r.get_json()
    assert body["status"] == 404 and body["field"] == "game"
    assert body["code"] == "rules-not-found" and body["params"] == {
        "game": game.replace("%20", " ")
    }
    assert "hazari, azi, murlan" in body["detail"]


NOT_FOUND = {
    "en": "There is no game called",
    "ru": "Здесь нет игры",
    "hu": "nevű játék",
    "bg": "Тук няма игра",
    "sq": "nuk ka lojë",
    "ne": "नामको खेल छैन",
}


@pytest.mark.parametrize("lang", sorted(NOT_FOUND))
def test_an_unknown_game_in_a_browser_is_a_404_page_in_the_readers_language(
    client: FlaskClient, lang: str
) -> None:
    r = client.get(
        "/rules/poker<b>", headers={"Accept": "text/html,*/*;q=0.8", "Accept-Language": lang}
    )
    assert r.status_code == 404 and r.mimetype == "text/html"
    text = r.get_data(as_text=True)
    assert html_lang(text) == lang
    assert NOT_FOUND[lang] in text and "poker&lt;b&gt;" in text and "<b>" not in text
    assert "application/problem" not in text and '"detail"' not in text
    for game in rules_module.GAMES:  # the games it has, to go on to
        assert f'href="/rules/{game}"' in text
    title = re.search(r"<title>([^<]*)</title>", text)
    assert title and title.group(1) == rules_module.message(
        lang, "rules", "rules.notFoundPageTitle"
    )


def test_a_translation_is_chosen_by_the_lang_query(client: FlaskClient, translated: Path) -> None:
    text = client.get("/rules/murlan?lang=ru").get_data(as_text=True)
    assert html_lang(text) == "ru" and article_lang(text) == "ru"
    assert "<h1>Мурлан</h1>" in text and "<td>низшая</td>" in text
    assert "not-translated" not in text
    # links to the other games keep the language asked for
    assert 'href="/rules/hazari?lang=ru"' in text


def test_a_language_without_a_translation_shows_english_and_says_so(
    client: FlaskClient, translated: Path
) -> None:
    text = client.get("/rules/hazari?lang=ru").get_data(as_text=True)
    assert html_lang(text) == "ru" and article_lang(text) == "en"
    assert "<h1>Hazari Lite</h1>" in text
    assert 'id="not-translated" data-i18n="rules.notTranslated"' in text


def test_the_cookie_then_accept_language_choose_when_no_lang_is_asked(
    client: FlaskClient, translated: Path
) -> None:
    by_header = client.get("/rules/murlan", headers={"Accept-Language": "ru-RU,ru;q=0.9"})
    assert html_lang(by_header.get_data(as_text=True)) == "ru"
    assert "Accept-Language" in by_header.headers["Vary"]
    client.set_cookie("cardroom.lang", "hu")
    by_cookie = client.get("/rules/murlan", headers={"Accept-Language": "ru"})
    assert html_lang(by_cookie.get_data(as_text=True)) == "hu"  # no Hungarian text: English
    assert article_lang(by_cookie.get_data(as_text=True)) == "en"
    by_query = client.get("/rules/murlan?lang=ru", headers={"Accept-Language": "bg"})
    assert article_lang(by_query.get_data(as_text=True)) == "ru"  # the query beats the cookie


@pytest.mark.parametrize(
    ("query", "header", "cookie", "expected"),
    [
        ("?lang=xx", None, None, "en"),
        ("?lang=", None, None, "en"),
        ("?lang=../ru", None, None, "en"),
        ("?lang=xx", "ru", None, "ru"),  # an unknown ?lang= is passed over
        ("", "de-DE,de;q=0.9", None, "en"),  # a language cardroom does not speak
        ("", None, "klingon", "en"),
        ("", "fr, bg;q=0.5", "zz", "bg"),
    ],
)
def test_unknown_languages_fall_back(
    client: FlaskClient,
    translated: Path,
    query: str,
    header: str | None,
    cookie: str | None,
    expected: str,
) -> None:
    if cookie is not None:
        client.set_cookie("cardroom.lang", cookie)
    headers = {"Accept-Language": header} if header else {}
    r = client.get(f"/rules/murlan{query}", headers=headers)
    assert r.status_code == 200
    assert html_lang(r.get_data(as_text=True)) == expected


def test_raw_html_in_a_document_is_dropped_and_text_escaped() -> None:
    doc = markdown.render(
        "# A <b>title</b>\n\n<script>alert(1)</script>\n\n<!-- note -->\n\n"
        "Text with <img src=x onerror=alert(1)> and `a < b` & more.\n"
    )
    assert "<script" not in doc.html and "<img" not in doc.html and "<b>" not in doc.html
    assert "note" not in doc.html
    assert "<code>a &lt; b</code> &amp; more" in doc.html
    assert doc.title == "A title"


def test_links_lead_to_pages_of_the_site_or_become_text() -> None:
    doc = markdown.render(
        "See [the format](replay-format.md), [the bench](../bench/README.md),"
        " [the page](/fairness), [a heading](#cards) and [elsewhere](https://example.org/x)."
    )
    hrefs = re.findall(r"<a href=\"([^\"]+)\">", doc.html)
    assert hrefs == ["/fairness", "#cards", "https://example.org/x"]
    assert "See the format, the bench, " in doc.html
    assert '<a href="/fairness">the page</a>' in doc.html


@pytest.mark.parametrize("reference", [False, True])
@pytest.mark.parametrize("game", GAMES)
def test_a_translation_links_its_english_page(
    client: FlaskClient, game: str, reference: bool
) -> None:
    extra = "&reference=1" if reference else ""
    text = client.get(f"/rules/{game}?lang=bg{extra}").get_data(as_text=True)
    assert f'<a href="/rules/{game}?lang=en{extra.replace("&", "&amp;")}">' in text
    assert f'href="../{game}.md"' not in text
    english = client.get(f"/rules/{game}?lang=en{extra}").get_data(as_text=True)
    assert html_lang(english) == "en" and article_lang(english) == "en"


def test_the_fairness_document_page_renders_the_document_marked_english(
    client: FlaskClient,
) -> None:
    text = client.get("/fairness/document").get_data(as_text=True)
    assert '<article class="doc" id="fairness-doc" lang="en">' in text
    assert '<h2 id="the-algorithm-exactly">The algorithm, exactly</h2>' in text
    assert '<pre tabindex="0"><code' in text and "cardroom-shuffle-v1" in text
    assert "\n## " not in text and "<!--" not in text and "vectors:begin" not in text
    # The fairness page itself links to it, the link marked English, and holds none of it.
    page = client.get("/fairness").get_data(as_text=True)
    assert '<a href="/fairness/document" lang="en" hreflang="en">' in page
    assert "The algorithm, exactly" not in page
