"""Lists in a sentence ("Ana, Bo and Cy" in the log, the winners, the scores) are joined in
the reader's language, also where the browser lacks that language's list patterns: some
builds of Chromium carry Intl's data for the larger languages only, and fall back to
English ("a, b, and c") for Nepali and Albanian."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from .helpers import Site, keep_pace
from .i18n_support import LANGUAGES, catalog

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("i18n-lists")]

JOIN = """async ([items, kind]) => {
  const i18n = await import('/web/static/js/i18n.js');
  return i18n.list(items, kind);
}"""
SUPPORTED = "(tag) => Intl.ListFormat.supportedLocalesOf([tag]).length > 0"


@pytest.fixture(scope="module")
def pages(browser: Browser, site: Site) -> Iterator[dict[str, Page]]:
    out = {}
    for lang in LANGUAGES:
        context = browser.new_context(base_url=site.url)
        keep_pace(context, lang=lang)
        page = context.new_page()
        page.goto("/")
        expect(page.locator("html")).to_have_attribute("lang", lang)
        out[lang] = page
    yield out
    for page in out.values():
        page.context.close()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_list_is_joined_with_the_languages_own_word(pages: dict[str, Page], lang: str) -> None:
    page = pages[lang]
    joined = page.evaluate(JOIN, [["Ana", "Bo", "Cy"], "and"])
    if page.evaluate(SUPPORTED, lang):
        expected = page.evaluate(
            "(tag) => new Intl.ListFormat(tag, {type: 'conjunction'}).format(['Ana', 'Bo', 'Cy'])",
            lang,
        )
    else:
        pattern = catalog(lang)["common.listAnd"]
        expected = pattern.replace("{rest}", "Ana, Bo").replace("{last}", "Cy")
    assert joined == expected
    if lang != "en":
        assert " and " not in joined, joined
    assert page.evaluate(JOIN, [["Ana"], "and"]) == "Ana"
    assert page.evaluate(JOIN, [[], "and"]) == ""


@pytest.mark.parametrize("lang", LANGUAGES)
def test_figures_are_listed_without_a_conjunction(pages: dict[str, Page], lang: str) -> None:
    joined = pages[lang].evaluate(JOIN, [["Ana 3", "Bo 0"], "unit"])
    assert "Ana 3" in joined and "Bo 0" in joined and " and " not in joined


@pytest.mark.parametrize("lang", LANGUAGES)
def test_without_the_browsers_patterns_the_catalog_joins(pages: dict[str, Page], lang: str) -> None:
    """As a browser without the language's data would: Intl has no patterns for it."""
    joined = pages[lang].evaluate(
        """async (items) => {
          const i18n = await import('/web/static/js/i18n.js');
          const own = Intl.ListFormat.supportedLocalesOf;
          Intl.ListFormat.supportedLocalesOf = () => [];
          try {
            return i18n.list(items, 'and');
          } finally {
            Intl.ListFormat.supportedLocalesOf = own;
          }
        }""",
        ["Ana", "Bo", "Cy"],
    )
    pattern = catalog(lang)["common.listAnd"]
    assert joined == pattern.replace("{rest}", "Ana, Bo").replace("{last}", "Cy")
