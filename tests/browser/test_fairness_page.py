"""The fairness page in a browser: the report drawn, my luck, the how-to."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from .helpers import Site, wait_for

pytestmark = pytest.mark.browser


def hands_of(site: Site, game: str) -> int:
    """Hands of ``game`` counted in the report (Azi's tables are per deck and deal size)."""
    report = site.api("GET", "/fairness/report")
    return sum(
        t["hands"] for t in report["tables"] if t["table"] == game or t["table"].startswith(game)
    )


def hands_of_player(site: Site, game: str, name: str) -> int:
    """Hands of ``game`` the report counts for the player ``name``."""
    report = site.api("GET", "/fairness/report", params={"player": name})
    return sum(
        group["hands"]
        for t in report["tables"]
        if t["table"] == game or t["table"].startswith(game)
        for feature in t["features"][:1]
        for group in feature["groups"]
        if group.get("label_code") == "player"
    )


def finish_bot_game(site: Site, game: str, seats: int | None = None) -> str:
    """A game of bots played to the end and counted. Other tests' games may be
    counted meanwhile, so the wait is for hands of this very kind of game."""
    body: dict[str, object] = {"game": game}
    if seats is not None:
        body.update(seats=seats, options={"buy_in": 40, "ante": 10, "min_bet": 10})
    counted = hands_of(site, game)
    created = site.api("POST", "/games", json=body)
    for i in range(created["seats"]):
        site.api(
            "POST", f"/games/{created['game_id']}/seats", json={"name": f"luck-{i}", "bot": True}
        )
    # the report's analysis may still be catching up with games finished before this
    # one: wait for this game's own player to have hands of this kind, too
    played = hands_of_player(site, game, "luck-1")
    wait_for(
        f"{game} game {created['game_id']} to be counted",
        lambda: hands_of(site, game) > counted and hands_of_player(site, game, "luck-1") > played,
        timeout_s=120,
    )
    return str(created["game_id"])


def test_the_fairness_page_draws_the_report(page: Page, site: Site) -> None:
    finish_bot_game(site, "murlan")
    finish_bot_game(site, "azi", seats=3)
    page.goto("/fairness")
    # two games' deals may or may not be enough for a test: either honest verdict
    expect(page.locator("#verdict")).to_contain_text(re.compile("fair deal|Not enough hands"))
    expect(page.locator("#totals")).to_contain_text("finished games")
    expect(page.locator("svg.chart").first).to_be_visible()
    expect(page.get_by_role("heading", name="Jokers in hand")).to_be_visible()
    expect(page.locator("#pvalue-h")).to_have_text("What a flag means")
    expect(page.locator("#doc-link a")).to_have_attribute("href", "/fairness/document")
    page.locator("#luck-name").fill("luck-1")
    page.get_by_role("button", name="Show my hands").click()
    expect(page.locator("#luck svg.forest")).to_be_visible()
    expect(page.locator("#luck")).to_contain_text("Murlan: Jokers")
    site.shot(page, "fairness-report")
    page.set_viewport_size({"width": 390, "height": 844})
    site.shot(page, "fairness-report-phone")

    page.locator("#luck-name").fill("nobody-here")
    page.get_by_role("button", name="Show my hands").click()
    expect(page.locator("#luck")).to_contain_text("No finished hands")
