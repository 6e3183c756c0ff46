"""My statistics: counted in the browser from the games it holds a seat in: per game kind the
finished games, those won, their share and the games still on; a game the server no longer
has is said, not counted."""

from __future__ import annotations

import json
import time
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from .helpers import Site, wait_for

pytestmark = pytest.mark.browser


def played_azi(site: Site, name: str) -> tuple[str, dict[str, Any]]:
    """A two-seat Azi game with small stacks, this seat against a bot, played to its end
    through the API (the seat's first legal move each time); its id and the seat."""
    options = {"buy_in": 20, "ante": 10, "min_bet": 10, "turn_timeout_s": 600}
    made = site.api("POST", "/games", json={"game": "azi", "seats": 2, "options": options})
    game_id = made["game_id"]
    seat = site.api("POST", f"/games/{game_id}/seats", json={"name": name})
    site.api("POST", f"/games/{game_id}/seats", json={"name": "Bot", "bot": True})
    auth = {"Authorization": f"Bearer {seat['token']}"}
    deadline = time.monotonic() + 30
    while True:
        # the seat's turn, or the end (the bot's moves and the deals are the worker's)
        view = wait_for(
            "the seat's turn or the end",
            lambda: (
                v
                if (v := site.view(game_id, seat["token"]))["status"] == "ended" or v["legal_moves"]
                else None
            ),
        )
        if view["status"] == "ended":
            return game_id, {"token": seat["token"], "seat": seat["seat"], "name": name}
        assert time.monotonic() < deadline, "the game did not end"
        move = next(m for m in view["legal_moves"] if m["action"] != "leave")
        body = {"move": move, "expected_version": view["version"]}
        # a move that lost a race with the worker is refused (409): the next view decides
        httpx.post(f"{site.url}/games/{game_id}/moves", json=body, headers=auth, timeout=10)


def test_my_statistics_count_the_games_held_here(page: Page, site: Site) -> None:
    held = dict(played_azi(site, "Uma") for _ in range(2))
    waiting = site.api("POST", "/games", json={"game": "murlan"})["game_id"]
    seat = site.api("POST", f"/games/{waiting}/seats", json={"name": "Uma"})
    held[waiting] = {"token": seat["token"], "seat": seat["seat"], "name": "Uma"}
    held["no-such-game-here"] = {"token": "x" * 43, "seat": 0, "name": "Uma"}
    won = sum(site.view(g)["result"]["results"][s["seat"]] > 0 for g, s in list(held.items())[:2])
    chips = sum(site.view(g)["result"]["results"][s["seat"]] for g, s in list(held.items())[:2])
    script = "".join(
        f"localStorage.setItem('cardroom.seat.{g}', {json.dumps(json.dumps(s))});"
        for g, s in held.items()
    )
    page.add_init_script(script)
    page.goto("/my-stats")
    expect(page.locator("#stats-loading")).to_be_hidden()
    azi = page.locator('#stats tbody tr[data-game="azi"] td')
    expect(azi.nth(0)).to_have_text("2")
    expect(azi.nth(1)).to_have_text(str(won))
    expect(azi.nth(2)).to_have_text(f"{won * 50}%")
    expect(azi.nth(3)).to_have_text("0")
    murlan = page.locator('#stats tbody tr[data-game="murlan"] td')
    expect(murlan.nth(0)).to_have_text("0")
    expect(murlan.nth(2)).to_have_text("–")
    expect(murlan.nth(3)).to_have_text("1")
    total = page.locator("#stats tfoot tr td")
    expect(total.nth(0)).to_have_text("2")
    expect(total.nth(3)).to_have_text("1")
    expect(page.locator("#stats-chips")).to_contain_text(f"in all: {chips:,}.")
    expect(page.locator("#stats-gone")).to_have_text(
        "1 game is no longer on the server and is not counted."
    )
    site.shot(page, "my-stats")
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    site.shot(page, "my-stats-phone")
    page.goto("/my-stats?lang=ne")
    expect(page.locator("h1")).to_have_text("मेरो तथ्याङ्क")
    expect(page.locator('#stats tbody tr[data-game="azi"] th')).to_have_text("अजी")
    site.shot(page, "my-stats-ne-phone")
    # reached from My games
    page.goto("/my-games?lang=ne")
    page.get_by_role("link", name="मेरो तथ्याङ्क").click()
    page.wait_for_url("**/my-stats")


def test_no_games_yet_says_how_they_come(page: Page, site: Site) -> None:
    page.goto("/my-stats")
    expect(page.locator("#stats-empty")).to_be_visible()
    expect(page.locator("#stats-panel")).to_be_hidden()
