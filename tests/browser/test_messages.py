"""Preset table messages: one tap says one, everyone at the table sees it beside the seat in
their own language, and the buttons rest between two."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from .helpers import Site, collect_errors, keep_pace

pytestmark = pytest.mark.browser


def test_a_message_is_seen_beside_the_seat_in_each_language(
    page: Page, browser: Browser, site: Site
) -> None:
    made = site.api("POST", "/games", json={"game": "murlan", "options": {"turn_timeout_s": 600}})
    game_id = made["game_id"]
    ann = site.api("POST", f"/games/{game_id}/seats", json={"name": "Ann"})
    ben = site.api("POST", f"/games/{game_id}/seats", json={"name": "Ben"})
    for n in range(2):
        site.api("POST", f"/games/{game_id}/seats", json={"name": f"Bot {n}", "bot": True})
    keep_pace(page)
    page.goto(f"/table/{game_id}#seat={ann['token']}")
    expect(page.locator("#conn")).to_have_text("live")
    other = browser.new_context(base_url=site.url, viewport={"width": 390, "height": 844})
    try:
        errors: list[str] = []
        phone = collect_errors(other.new_page(), errors)
        keep_pace(phone, lang="bg")
        phone.goto(f"/table/{game_id}#seat={ben['token']}")
        expect(phone.locator("#say .say-code")).to_have_count(6)
        expect(phone.locator("#conn")).to_have_text("на живо")
        page.locator('#say .say-code[data-code="good_luck"]').click()
        bubble = '#seats .seat[data-seat="0"] .said'
        expect(page.locator(bubble)).to_have_text("Good luck!")
        expect(phone.locator(bubble)).to_have_text("Успех!")
        expect(page.locator("#say .say-code").first).to_be_disabled()  # resting a moment
        site.shot(page, "table-message")
        for button in phone.locator("#say .say-code").all():
            box = button.bounding_box()
            assert box and box["height"] >= 44 and box["width"] >= 44, box
        assert phone.evaluate("document.documentElement.scrollWidth") <= 390
        site.shot(phone, "table-message-bg-phone")
        # the other way round: Ben's answer reaches Ann
        phone.locator('#say .say-code[data-code="thanks"]').click()
        expect(page.locator('#seats .seat[data-seat="1"] .said')).to_have_text("Thanks!")
        assert not errors, errors
    finally:
        other.close()
    listed = site.api("GET", f"/games/{game_id}/messages")["items"]
    assert [(m["seat"], m["code"]) for m in listed] == [(0, "good_luck"), (1, "thanks")]
