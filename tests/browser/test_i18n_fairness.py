"""The fairness page in the reader's language: the report (verdicts, tables, features,
groups, "my luck") worded from the catalogs, with no English of the report or of the
catalogs on the screen outside what is marked ``lang="en"`` (the link to the full
document, and the document's own page). Screenshots of each language, desktop and phone."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, Route, expect

from service.fairness import report

from .helpers import Site, collect_errors, keep_pace
from .i18n_support import catalog, english_found
from .table_support import horizontal_overflow
from .test_fairness_page import finish_bot_game

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.xdist_group("i18n-fairness")]

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
PLAYER = "luck-1"
TEXTS = ("title", "label", "expectation", "test", "verdict")

# Every text the reader can meet, outside elements marked English: text nodes (the SVG
# charts' labels and tooltips too, and folded details), and the labels, titles and
# placeholders of elements.
OUTSIDE_ENGLISH = """() => {
  const english = (node) => {
    const el = node.nodeType === Node.ELEMENT_NODE ? node : node.parentElement;
    const marked = el && el.closest('[lang]');
    return Boolean(marked && marked !== document.documentElement && marked.lang.startsWith('en'));
  };
  const out = [document.title];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!english(node) && node.textContent.trim()) out.push(node.textContent.trim());
  }
  for (const el of document.body.querySelectorAll('[title], [aria-label], [placeholder], [alt]')) {
    if (english(el)) continue;
    for (const attr of ['title', 'aria-label', 'placeholder', 'alt']) {
      if (el.getAttribute(attr)) out.push(el.getAttribute(attr));
    }
  }
  return out.join('\\n');
}"""


def english_of(doc: Any) -> set[str]:
    """Every English text of a report (its verdicts, titles, labels, …)."""
    found: set[str] = set()
    stack = [doc]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            found.update(str(node[k]) for k in TEXTS if isinstance(node.get(k), str))
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


@pytest.fixture(scope="module")
def counted(site: Site) -> Iterator[None]:
    """A Murlan game and an Azi game of bots, played to the end and counted."""
    finish_bot_game(site, "murlan")
    finish_bot_game(site, "azi", seats=3)
    yield


@pytest.fixture
def reader(
    request: pytest.FixtureRequest, browser: Browser, site: Site
) -> Iterator[tuple[Page, str]]:
    """A browser whose reader chose the language ``request.param`` before."""
    context = browser.new_context(base_url=site.url, viewport=DESKTOP)
    context.set_default_timeout(20_000)
    keep_pace(context, lang=request.param)
    errors: list[str] = []
    page = collect_errors(context.new_page(), errors)
    yield page, request.param
    context.close()
    assert not errors, errors


def screen(page: Page) -> str:
    return str(page.evaluate(OUTSIDE_ENGLISH))


def assert_no_english(page: Page, lang: str, reports: list[Any], where: str) -> None:
    text = screen(page)
    english = sorted(e for doc in reports for e in english_of(doc) if e in text)
    assert english == [], f"the report's English on the {lang} {where}: {english}"
    found = english_found(text, lang, {PLAYER})
    assert found == [], f"English of the catalogs on the {lang} {where}: {found}"


def shots(page: Page, site: Site, name: str) -> None:
    site.shot(page, f"{name}-desktop")
    page.set_viewport_size(PHONE)
    page.wait_for_timeout(100)  # one frame for the layout to settle before the picture
    site.shot(page, f"{name}-phone")
    assert horizontal_overflow(page) == 0, f"{name} is wider than a phone"
    page.set_viewport_size(DESKTOP)


@pytest.mark.parametrize("reader", ["ru", "ne"], indirect=True)
def test_the_fairness_page_speaks_the_reader_s_language(
    reader: tuple[Page, str], site: Site, counted: None
) -> None:
    page, lang = reader
    messages = catalog(lang)
    served = site.api("GET", "/fairness/report")
    mine = site.api("GET", "/fairness/report", params={"player": PLAYER})
    page.goto("/fairness")
    expect(page.locator("html")).to_have_attribute("lang", lang)
    expect(page.locator("#verdict")).to_have_attribute("data-code", served["verdict_code"])
    expect(page.locator("svg.chart").first).to_be_visible()
    expect(page.locator("#tables h2").first).not_to_have_text(served["tables"][0]["title"])
    jokers = messages["fairness.feature.jokers"]
    expect(page.get_by_role("heading", name=jokers, exact=True)).to_be_visible()
    kings = messages["fairness.feature.rank"].replace("{rank}", "K")
    expect(page.get_by_role("heading", name=kings, exact=True).first).to_be_visible()
    site.screenshots.mkdir(parents=True, exist_ok=True)
    heading = page.get_by_role("heading", name=kings, exact=True).first
    heading.locator("xpath=..").screenshot(path=str(site.screenshots / f"fairness-rank-{lang}.png"))
    for summary in page.locator("#tables details > summary").all():
        summary.click()
    page.locator("#luck-name").fill(PLAYER)
    page.locator("#luck-form button[type=submit]").click()
    expect(page.locator("#luck svg.forest")).to_be_visible()
    expect(page.locator("#luck li").first).to_be_visible()
    # The link to the whole document: English and marked so, introduced in the reader's words.
    link = page.locator("#doc-link a")
    expect(link).to_have_attribute("lang", "en")
    expect(page.locator("#doc-link span")).to_have_text(messages["fairness.docIntro"])
    expect(page.locator("#about h3")).to_have_count(3)
    assert_no_english(page, lang, [served, mine], "fairness page")
    if lang == "ru":  # numbers as Russian writes them: a decimal comma
        assert re.search(r"\b\d,\d{3}\b", screen(page))
        assert not re.search(r"\b\d\.\d{3}\b", page.locator("#tables").inner_text())
    shots(page, site, f"i18n-fairness-{lang}")

    link.click()
    page.wait_for_url("**/fairness/document")
    expect(page.locator("#fairness-doc")).to_have_attribute("lang", "en")
    expect(page.locator("#in-english")).to_be_visible()
    expect(page.locator("#in-english span")).to_have_text(messages["fairness.documentNotice"])
    assert_no_english(page, lang, [], "fairness document page")
    shots(page, site, f"i18n-fairness-document-{lang}")


@pytest.mark.parametrize("reader", ["ru", "ne", "en"], indirect=True)
def test_with_no_games_the_page_says_not_enough_hands(reader: tuple[Page, str], site: Site) -> None:
    """A store with nothing counted (the served report stood in for): the verdict says
    there are not enough hands yet, in the reader's words, and never that the deals
    look fair."""
    page, lang = reader
    empty = report.build({}, {})

    def serve(route: Route) -> None:
        route.fulfill(status=200, content_type="application/json", body=json.dumps(empty))

    page.route("**/fairness/report", serve)
    page.goto("/fairness")
    verdict = page.locator("#verdict")
    expect(verdict).to_have_attribute("data-code", "not-enough-hands")
    fair = catalog(lang)["fairness.verdict.report.nothing-unusual"]
    expect(verdict).not_to_have_text(fair)
    expect(verdict).not_to_contain_text("consistent with a fair deal")
    if lang == "en":
        expect(verdict).to_have_text(
            "Not enough hands yet to test: no finished game has been counted yet."
        )
    else:
        start = catalog(lang)["fairness.verdict.report.not-enough-hands"].split("{")[0].strip()
        expect(verdict).to_contain_text(start)
        assert_no_english(page, lang, [empty], "fairness page with no games")
        site.shot(page, f"i18n-fairness-empty-{lang}-desktop")
