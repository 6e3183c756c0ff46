"""The web table lives on its stream: no polling for the view, and away seats shown."""

from __future__ import annotations

from urllib.parse import urlparse

import pytest
from playwright.sync_api import Page, Request, expect

from .helpers import Site, create_from_lobby, keep_pace, seat_of, wait_for

pytestmark = pytest.mark.browser


def test_the_table_never_polls_for_its_view(page: Page, site: Site) -> None:
    game_id = create_from_lobby(page, "murlan", "Vera")
    token = seat_of(page, game_id)["token"]
    views: list[str] = []

    def note(request: Request) -> None:
        if request.method == "GET" and urlparse(request.url).path == f"/games/{game_id}":
            views.append(request.url)

    page.on("request", note)
    expect(page.locator("#conn")).to_have_text("live")
    # play a few turns: each new view must come from the stream
    for _ in range(3):
        view = wait_for(
            "our turn",
            lambda: v if (v := site.view(game_id, token))["legal_moves"] else None,
            timeout_s=30,
        )
        shown = str(view["version"])
        expect(page.locator("#meta")).to_have_attribute("data-version", shown)
        expect(page.locator("#status")).to_have_class("status mine")
        move = view["legal_moves"][0]
        site.api("POST", f"/games/{game_id}/moves", token, json={"move": move})
        expect(page.locator("#meta")).not_to_have_attribute("data-version", shown)
    assert views == []


def test_an_away_seat_is_shown_and_comes_back(page: Page, site: Site, bots_think: float) -> None:
    # A turn limit of 3 s: away after two missed turns, and once back, 6 s
    # before it could be away again (the page must see it back in between).
    # The bots think a little, so the match (all four seats played by the bots
    # while Sam is away) is still on when Sam comes back.
    made = site.api("POST", "/games", json={"game": "murlan", "options": {"turn_timeout_s": 3}})
    game_id = made["game_id"]
    silent = site.api("POST", f"/games/{game_id}/seats", json={"name": "Silent Sam"})
    for n in range(3):
        site.api("POST", f"/games/{game_id}/seats", json={"name": f"bot {n}", "bot": True})
    keep_pace(page)  # the away mark comes and goes between plays the bots make at once
    page.goto(f"/table/{game_id}")
    away = page.locator('#seats .seat[data-seat="0"] .tag.away')
    expect(away).to_be_visible(
        timeout=60_000
    )  # the turn clock is the worker's: slow on a busy machine
    # The log keeps the latest 80 lines and the bots play the away seat as fast as
    # their own, so the line may already have scrolled out: the record says it
    # instead.
    events = site.api("GET", f"/games/{game_id}/events?limit=1000")["events"]
    assert any(e["type"] == "SeatAway" and e["seat"] == 0 for e in events)
    site.shot(page, "table-away")
    page.set_viewport_size({"width": 390, "height": 844})
    site.shot(page, "table-away-phone")
    page.set_viewport_size({"width": 1280, "height": 900})
    # any request with the seat's token brings it back; the page sees it on its stream
    back = site.view(game_id, silent["token"])
    assert back["status"] == "playing" and 0 not in back["away"], back["away"]
    expect(away).to_have_count(0)
    expect(page.locator("#log")).to_contain_text("is back")
