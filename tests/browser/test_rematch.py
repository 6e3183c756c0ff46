"""Rematch from the table: each person at the ended table asks, the last to ask opens the
next game, and every player lands in it at the same seat, the old seat link included."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from .helpers import Site, collect_errors, game_id_of, keep_pace, seat_of

pytestmark = pytest.mark.browser


def test_both_players_ask_and_land_in_the_next_game(
    page: Page, browser: Browser, site: Site
) -> None:
    made = site.api("POST", "/games", json={"game": "murlan", "options": {"turn_timeout_s": 600}})
    game_id = made["game_id"]
    ann = site.api("POST", f"/games/{game_id}/seats", json={"name": "Ann"})
    ben = site.api("POST", f"/games/{game_id}/seats", json={"name": "Ben"})
    for n in range(2):
        site.api("POST", f"/games/{game_id}/seats", json={"name": f"Bot {n}", "bot": True})
    site.end_games({game_id})
    keep_pace(page)
    page.goto(f"/table/{game_id}#seat={ann['token']}")
    panel = page.locator("#rematch")
    expect(panel).to_contain_text("Play again")
    page.click("#rematch-ask")
    expect(panel).to_contain_text("You asked for a rematch.")
    expect(panel).to_contain_text("Waiting for Ben to agree.")
    expect(page.locator("#rematch-ask")).to_have_count(0)  # asked: the lines say so
    site.shot(page, "table-rematch-asked")

    other = browser.new_context(base_url=site.url, viewport={"width": 390, "height": 844})
    try:
        errors: list[str] = []
        phone = collect_errors(other.new_page(), errors)
        keep_pace(phone, lang="ru")
        phone.goto(f"/table/{game_id}#seat={ben['token']}")
        theirs = phone.locator("#rematch")
        expect(theirs).to_contain_text("Ann хочет сыграть ещё.")
        box = phone.locator("#rematch-ask").bounding_box()
        assert box and box["height"] >= 44, box
        site.shot(phone, "table-rematch-ru-phone")
        phone.click("#rematch-ask")  # the last to ask: the next game opens, Ben goes there
        phone.wait_for_url(lambda url: game_id not in url and "/table/" in url)
        next_id = game_id_of(phone)
        assert seat_of(phone, next_id)["seat"] == 1
        expect(phone.locator('#seats .seat.me[data-seat="1"]')).to_be_visible()
        assert not errors, errors
    finally:
        other.close()
    # Ann's page looks again while waiting, and follows
    page.wait_for_url(f"**/table/{next_id}", timeout=20_000)
    assert seat_of(page, next_id)["seat"] == 0
    expect(page.locator('#seats .seat.me[data-seat="0"]')).to_be_visible()
    view = site.view(next_id)
    assert [s["name"] for s in view["seats"]] == ["Ann", "Ben", "Bot 0", "Bot 1"]
    assert view["options"] == site.view(game_id)["options"]


def test_the_old_seat_link_leads_to_the_next_game(browser: Browser, site: Site) -> None:
    made = site.api("POST", "/games", json={"game": "azi", "seats": 2})
    game_id = made["game_id"]
    cy = site.api("POST", f"/games/{game_id}/seats", json={"name": "Cy"})
    site.api("POST", f"/games/{game_id}/seats", json={"name": "Bot", "bot": True})
    site.end_games({game_id})
    # asked from elsewhere (the API): the next game opens at once (the other seat is a bot)
    asked = site.api("POST", f"/games/{game_id}/rematch", cy["token"])
    nxt = asked["next"]
    # a device that never saw either game opens the old seat link
    fresh = browser.new_context(base_url=site.url, viewport={"width": 1280, "height": 900})
    try:
        page = fresh.new_page()
        page.goto(f"/table/{game_id}#seat={cy['token']}")
        expect(page.locator("#rematch")).to_contain_text("The next game is ready.")
        assert seat_of(page, nxt["game_id"]) == {"token": nxt["token"], "seat": 0, "name": "Cy"}
        page.click("#rematch-go")
        page.wait_for_url(f"**/table/{nxt['game_id']}")
        expect(page.locator('#seats .seat.me[data-seat="0"]')).to_be_visible()
    finally:
        fresh.close()
