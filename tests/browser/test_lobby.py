"""The lobby and a shared table link: bots added, seats taken, a spectator
who joins from the table page, and a live stream that drops and reconnects."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, Route, expect

from .helpers import Site, seat_of

pytestmark = pytest.mark.browser


def test_seats_from_the_lobby_and_the_table_page(page: Page, browser: Browser, site: Site) -> None:
    game_id = site.api("POST", "/games", json={"game": "murlan"})["game_id"]
    page.goto("/")
    page.fill("#player-name", "Bea")
    page.select_option('#filter-form [name="status"]', "seating")
    page.click('#filter-form button[type="submit"]')
    row = page.locator(f'#games tr[data-game="{game_id}"]')
    expect(row).to_contain_text("4 free seats")
    for free in (3, 2):
        row.get_by_role("button", name="Add a bot").click()
        expect(row).to_contain_text(f"{free} free seats")
    row.get_by_role("button", name="Take a seat").click()
    page.wait_for_url(f"**/table/{game_id}")
    assert seat_of(page, game_id)["seat"] == 2
    expect(page.locator("#status")).to_contain_text("3 of 4 seats taken")

    # A friend opens the shared link: no token there, so a public view and a
    # form to sit down. The friend's first live stream drops after its first
    # line; the page must reconnect with ?after=<the version it had>.
    friend_context = browser.new_context(base_url=site.url)
    friend = friend_context.new_page()
    streams: list[str] = []

    def drop_first(route: Route) -> None:
        streams.append(route.request.url)
        if len(streams) > 1:
            route.continue_()
            return
        view: dict[str, Any] = site.view(game_id)
        line = json.dumps({"kind": "view", "version": view["version"], "view": view})
        route.fulfill(status=200, content_type="application/x-ndjson", body=line + "\n")

    friend.route("**/games/*/events*", drop_first)
    friend.goto(f"/table/{game_id}")
    expect(friend.locator("#conn")).to_have_text("live")
    assert len(streams) >= 2 and "after=" in streams[1], streams
    expect(friend.locator("#join")).to_be_visible()
    expect(friend.locator("#you")).to_be_hidden()
    friend.fill('#join-form [name="name"]', "Cy")
    friend.fill('#join-form [name="client_seed"]', "cy-seed_1")
    friend.click('#join-form button[type="submit"]')
    expect(friend.locator("#join")).to_be_hidden()
    expect(friend.locator("#you #hand .card")).not_to_have_count(0)
    assert seat_of(friend, game_id)["seat"] == 3
    assert site.view(game_id)["seats"][3]["client_seed"] == "cy-seed_1"

    # Bea's page saw the game start over its own live stream.
    expect(page.locator("#seats .seat")).to_have_count(4)
    expect(page.locator("#seats")).to_contain_text("Cy")
    expect(page.locator("#hand .card")).not_to_have_count(0)
    site.shot(friend, "table-joined")
    friend_context.close()


def test_a_name_typed_while_the_lobby_loads_is_kept(page: Page) -> None:
    # The lobby's handlers are attached once its texts have loaded. Hold the
    # texts back: the create button must stay disabled meanwhile (a click could
    # otherwise submit the form natively), and the name typed in the meantime
    # must survive the name remembered from an earlier visit.
    page.add_init_script("localStorage.setItem('cardroom.name', 'Remembered')")
    held: list[Route] = []
    page.route("**/i18n/en/lobby.json", lambda route: held.append(route))
    page.goto("/")
    create = page.locator('#create-form button[type="submit"]')
    expect(create).to_be_disabled()
    page.fill("#player-name", "Typed")
    assert len(held) == 1
    held[0].continue_()
    expect(create).to_be_enabled()
    expect(page.locator("#player-name")).to_have_value("Typed")


def test_the_table_page_draws_the_seed_in_the_browser_and_shows_it(
    page: Page, browser: Browser, site: Site
) -> None:
    """A person who types no seed sits with one drawn by the page (not derived by
    the server), shown before the deal with how to check it later."""
    game_id = site.api("POST", "/games", json={"game": "murlan"})["game_id"]
    for n in range(3):
        site.api("POST", f"/games/{game_id}/seats", json={"name": f"bot{n}", "bot": True})
    page.goto(f"/table/{game_id}")
    field = page.locator('#join-form [name="client_seed"]')
    expect(field).to_have_value(re.compile(r"^[0-9a-f]{32}$"))
    expect(page.locator("#join")).to_contain_text("drawn in your browser")
    shown = field.input_value()
    other = browser.new_context(base_url=site.url).new_page()
    other.goto(f"/table/{game_id}")
    expect(other.locator('#join-form [name="client_seed"]')).not_to_have_value(shown)
    site.shot(page, "table-seed-drawn")
    for width, suffix in ((390, "phone"), (1280, "desktop")):
        page.set_viewport_size({"width": width, "height": 900})
        site.shot(page, f"table-seed-{suffix}")
    page.fill('#join-form [name="name"]', "Di")
    page.click('#join-form button[type="submit"]')
    expect(page.locator("#join")).to_be_hidden()
    seat = site.view(game_id)["seats"][3]
    assert (seat["client_seed"], seat["seed_origin"]) == (shown, "player")
    assert [s["seed_origin"] for s in site.view(game_id)["seats"][:3]] == ["derived"] * 3
