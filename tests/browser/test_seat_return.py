"""Taking a seat back without reloading: "I'm back" on an away seat, and a seat link opened in
the tab already showing its table; a damaged link says what the page shows instead."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from .helpers import Site, keep_pace, seat_of, wait_for

pytestmark = pytest.mark.browser

REFUSED = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"


def waiting_table(site: Site) -> str:
    made = site.api("POST", "/games", json={"game": "murlan", "options": {"turn_timeout_s": 600}})
    return str(made["game_id"])


def test_an_away_seat_comes_back_with_im_back(page: Page, site: Site, bots_think: float) -> None:
    # A turn limit of 3 s: away after two missed turns; the bots think a little, so the
    # match is still on when the player comes back.
    made = site.api("POST", "/games", json={"game": "murlan", "options": {"turn_timeout_s": 3}})
    game_id = made["game_id"]
    sam = site.api("POST", f"/games/{game_id}/seats", json={"name": "Sam"})
    for n in range(3):
        site.api("POST", f"/games/{game_id}/seats", json={"name": f"Bot {n}", "bot": True})
    keep_pace(page)
    page.goto(f"/table/{game_id}#seat={sam['token']}")
    bar = page.locator("#away-bar")
    expect(bar).to_be_visible(timeout=30_000)  # two missed turns of 3 s
    expect(bar).to_contain_text("a bot is playing your seat")
    site.shot(page, "table-im-back")
    page.set_viewport_size({"width": 390, "height": 844})
    box = page.locator("#im-back").bounding_box()
    assert box and box["height"] >= 44 and box["width"] >= 44, box
    site.shot(page, "table-im-back-phone")
    page.set_viewport_size({"width": 1280, "height": 900})
    page.click("#im-back")
    expect(bar).to_be_hidden()
    assert 0 not in site.view(game_id)["away"]
    # the seat is the player's again: its next turn comes to this page
    expect(page.locator("#status")).to_have_class("status mine", timeout=20_000)
    expect(page.locator('#seats .seat[data-seat="0"] .tag.away')).to_have_count(0)


def test_a_seat_link_pasted_into_the_open_tab_takes_the_seat(page: Page, site: Site) -> None:
    game_id = waiting_table(site)
    lena = site.api("POST", f"/games/{game_id}/seats", json={"name": "Lena"})
    page.goto(f"/table/{game_id}")
    expect(page.locator("#join")).to_be_visible()  # a spectator: the seat is not held here
    expect(page.locator("#seats .seat.me")).to_have_count(0)
    # only the fragment changes: no page load, the page must notice by itself
    page.evaluate("token => { window.location.hash = 'seat=' + token; }", lena["token"])
    expect(page.locator('#seats .seat.me[data-seat="0"]')).to_be_visible()
    expect(page.locator("#join")).to_be_hidden()
    wait_for("the token out of the address", lambda: "#" not in page.url)
    assert lena["token"] not in page.url
    assert seat_of(page, game_id) == {"token": lena["token"], "seat": 0, "name": "Lena"}
    expect(page.locator("#error")).to_have_text("")


def test_a_damaged_link_says_the_seat_held_here_stays(page: Page, site: Site) -> None:
    game_id = waiting_table(site)
    lena = site.api("POST", f"/games/{game_id}/seats", json={"name": "Lena"})
    page.goto(f"/table/{game_id}#seat={lena['token']}")
    expect(page.locator('#seats .seat.me[data-seat="0"]')).to_be_visible()
    # cut short on the way (a chat that wrapped it): damaged, and the seat held here stays
    page.evaluate("token => { window.location.hash = 'seat=' + token.slice(0, 9); }", lena["token"])
    error = page.locator("#error")
    expect(error).to_contain_text("This seat link is damaged")
    expect(error).to_contain_text("You are still at seat 1")
    expect(error).not_to_contain_text("spectator")
    expect(page.locator('#seats .seat.me[data-seat="0"]')).to_be_visible()
    assert seat_of(page, game_id)["token"] == lena["token"]
    # well-formed but not this table's: said so, and still seat 1
    page.evaluate("token => { window.location.hash = 'seat=' + token; }", REFUSED)
    expect(error).to_contain_text("does not open a seat at this table")
    expect(error).to_contain_text("You are still at seat 1")
    expect(error).not_to_contain_text("spectator")
    wait_for("the token out of the address", lambda: "#" not in page.url)
    site.shot(page, "table-link-damaged")


def test_a_damaged_link_in_a_fresh_browser_offers_to_watch(page: Page, site: Site) -> None:
    game_id = waiting_table(site)
    page.goto(f"/table/{game_id}#seat=short")
    expect(page.locator("#error")).to_contain_text("This seat link is damaged")
    expect(page.locator("#join")).to_be_visible()
    expect(page.locator("#seats .seat.me")).to_have_count(0)
