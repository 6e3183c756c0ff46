"""The language picked in a page's header is remembered: the next page, and the rules
(rendered on the server), come in that language."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from .helpers import Site

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_the_chosen_language_is_remembered_across_pages(page: Page, site: Site) -> None:
    page.goto("/")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    picker = page.locator("header .lang-picker")
    expect(picker).to_have_value("en")
    with page.expect_navigation():
        picker.select_option("hu")
    expect(page.locator("html")).to_have_attribute("lang", "hu")
    assert page.evaluate("localStorage.getItem('cardroom.lang')") == "hu"
    cookies = {c["name"]: c["value"] for c in page.context.cookies()}
    assert cookies.get("cardroom.lang") == "hu"

    # Another page of the app, with no ?lang: Hungarian, its picker showing it.
    page.goto("/fairness")
    expect(page.locator("html")).to_have_attribute("lang", "hu")
    expect(page.locator("header .lang-picker")).to_have_value("hu")
    # The rules come from the server in the cookie's language.
    page.goto("/rules/murlan")
    expect(page.locator("html")).to_have_attribute("lang", "hu")
    expect(page.locator("article").first).to_have_attribute("lang", "hu")
    site.shot(page, "i18n-rules-murlan-hu-desktop")

    # Choosing again on the rules page changes both the page and what is remembered.
    with page.expect_navigation():
        page.locator("header .lang-picker").select_option("sq")
    expect(page.locator("html")).to_have_attribute("lang", "sq")
    page.goto("/")
    expect(page.locator("html")).to_have_attribute("lang", "sq")
    expect(page.locator("#create-form button[type=submit]")).not_to_have_text(
        "Create the game and sit down"
    )
