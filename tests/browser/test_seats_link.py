"""The seat link: offered once a seat is taken, it reopens the seat in a fresh browser,
and its token (in the fragment) never reaches the server."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser, Page, Request, expect

from .helpers import Site, seat_of, wait_for

pytestmark = pytest.mark.browser


def new_table(site: Site, game: str = "murlan", **options: Any) -> str:
    """A table with every seat free and a long turn limit (nobody times out); its id."""
    made = site.api(
        "POST", "/games", json={"game": game, "options": {"turn_timeout_s": 600, **options}}
    )
    return str(made["game_id"])


def add_bots(site: Site, game_id: str, count: int) -> None:
    for n in range(count):
        site.api("POST", f"/games/{game_id}/seats", json={"name": f"Bot {n + 1}", "bot": True})


def test_a_seat_reopens_from_its_seat_link_in_a_fresh_browser(
    page: Page, browser: Browser, site: Site
) -> None:
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    game_id = new_table(site)
    page.goto(f"/table/{game_id}")
    page.fill("#join-form [name=name]", "Lena")
    page.click("#join-form button[type=submit]")
    held = wait_for(
        "the seat",
        lambda: page.evaluate("id => localStorage.getItem('cardroom.seat.' + id)", game_id),
    )
    assert held
    token = seat_of(page, game_id)["token"]

    # offered at once, as a warning until it is copied
    panel = page.locator("#seat-link")
    expect(panel).to_be_visible()
    expect(panel).to_have_class("panel seat-link unsaved")
    expect(page.locator("#seat-link-summary")).to_contain_text("copy your seat link")
    expect(panel).to_contain_text("Keep it secret")
    site.shot(page, "seats-link-offered")
    page.click("#copy-seat-link")
    expect(page.locator("#seat-link-msg")).to_contain_text("Copied")
    link = page.evaluate("navigator.clipboard.readText()")
    assert link == f"{site.url}/table/{game_id}#seat={token}"
    expect(panel).not_to_have_class("panel seat-link unsaved")
    expect(page.locator("#seat-link-summary")).to_have_text("Your seat link")
    page.set_viewport_size({"width": 390, "height": 844})
    site.shot(page, "seats-link-copied-phone")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.set_viewport_size({"width": 360, "height": 780})
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    add_bots(site, game_id, 3)

    # another device: a new browser context has empty storage
    other = browser.new_context(base_url=site.url, viewport={"width": 390, "height": 844})
    try:
        sent: list[str] = []
        headers: list[dict[str, str]] = []

        def note(request: Request) -> None:
            sent.append(request.url)
            headers.append(request.headers)

        other.on("request", note)
        phone = other.new_page()
        errors: list[str] = []
        phone.on("pageerror", lambda exc: errors.append(str(exc)))
        phone.goto(link)
        expect(phone.locator("#meta")).to_contain_text("you are at seat 1")
        assert "#" not in phone.url and token not in phone.url
        assert phone.url == f"{site.url}/table/{game_id}"
        assert seat_of(phone, game_id) == {"token": token, "seat": 0, "name": "Lena"}
        # whoever opened the link has it: no reminder on this device
        expect(phone.locator("#seat-link")).not_to_have_class("panel seat-link unsaved")

        # the seat plays from here: the game's first move (3♠ leads) when it is ours
        view = wait_for(
            "our turn",
            lambda: v if (v := site.view(game_id, token))["legal_moves"] else None,
            timeout_s=30,
        )
        expect(phone.locator("#status")).to_have_class("status mine")
        before = view["version"]
        move = view["legal_moves"][0]
        for card in move.get("cards", []):
            phone.locator(f'#hand button.card[data-card="{card}"]').click()
        action = "play" if move["action"] == "play" else "pass"
        phone.locator(f'#actions button[data-action="{action}"]').click()
        wait_for("our move", lambda: site.view(game_id, token)["version"] > before)
        events = site.api("GET", f"/games/{game_id}/events?after={before}")["events"]
        assert events[0]["seat"] == 0 and events[0]["type"] != "TurnTimedOut"
        site.shot(phone, "seats-link-reopened-phone")

        # the token went only into Authorization headers, never into an address
        assert sent and not [u for u in sent if token in u or "#" in u]
        assert any(h.get("authorization") == f"Bearer {token}" for h in headers)
        assert not errors, errors
    finally:
        other.close()


def test_a_link_the_game_refuses_is_said_and_forgotten(page: Page, site: Site) -> None:
    game_id = new_table(site)
    page.goto(f"/table/{game_id}#seat=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
    expect(page.locator("#error")).to_contain_text("does not open a seat at this table")
    assert "#" not in page.url
    assert page.evaluate("id => localStorage.getItem('cardroom.seat.' + id)", game_id) is None
    expect(page.locator("#join")).to_be_visible()
    expect(page.locator("#seat-link")).to_be_hidden()
