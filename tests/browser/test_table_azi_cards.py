"""Azi: your own cards stay readable while you bid or wait (contrast at least 4.5:1), marked
rather than faded when they cannot be played; a finished trick stays on the table."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import Page, expect

from .helpers import Site, create_from_lobby, seat_of
from .table_support import CARD_CONTRAST, horizontal_overflow, untranslated, visible_text

pytestmark = [pytest.mark.browser, pytest.mark.slow]

MIN_CONTRAST = 4.5


def test_azi_cards_are_readable_while_bidding(page: Page, site: Site) -> None:
    game_id = create_from_lobby(page, "azi", "Zoe", {"seats": "3", "buy_in": "5000"})
    token = seat_of(page, game_id)["token"]
    page.goto(f"/table/{game_id}?pace=instant")
    deadline = time.monotonic() + 60
    while True:
        view = site.view(game_id, token)
        actions = {m["action"] for m in view["legal_moves"]}
        if view["table"]["phase"] == "bidding" and {"bet", "call", "fold"} & actions:
            break
        assert view["status"] != "ended" and time.monotonic() < deadline, "no bid for Zoe"
        if actions:
            # not a bidding turn (a discard in the four-card deal): make the first move
            move = view["legal_moves"][0]
            site.api("POST", f"/games/{game_id}/moves", token, json={"move": move})
        time.sleep(0.05)
    expect(page.locator("#status")).to_have_class("status mine")
    expect(page.locator("#hand .card")).not_to_have_count(0)
    cards = page.evaluate(CARD_CONTRAST)
    assert cards and all(c["disabled"] for c in cards), cards  # none can be played now
    low = [c for c in cards if c["ratio"] < MIN_CONTRAST]
    assert not low, f"cards below {MIN_CONTRAST}:1 while bidding: {low}"
    expect(page.locator("#actions")).to_contain_text(
        "Your cards are played once the bidding is over"
    )
    assert not untranslated(visible_text(page))
    site.shot(page, "table-azi-bid-desktop")
    page.set_viewport_size({"width": 390, "height": 844})
    assert horizontal_overflow(page) == 0
    site.shot(page, "table-azi-bid-phone")


def test_the_match_ends_with_final_standings_and_a_replay_link(page: Page, site: Site) -> None:
    # Two seats with a buy-in of two antes: the first pot decides the match.
    game_id = create_from_lobby(
        page, "azi", "Fin", {"seats": "2", "buy_in": "20", "ante": "10", "min_bet": "10"}
    )
    token = seat_of(page, game_id)["token"]
    page.goto(f"/table/{game_id}?pace=instant")
    deadline = time.monotonic() + 60
    while (view := site.view(game_id, token))["status"] != "ended":
        assert time.monotonic() < deadline, "the match did not end"
        moves = view["legal_moves"]
        if moves:
            order = ("call", "bet", "play", "discard", "decline")
            move = next((m for a in order for m in moves if m["action"] == a), moves[0])
            site.api("POST", f"/games/{game_id}/moves", token, json={"move": move})
        else:
            time.sleep(0.05)
    panel = page.locator('#summary[data-kind="final"]')
    expect(panel).to_be_visible()
    expect(panel).to_contain_text("final standings")
    result = site.view(game_id)["result"]
    names = {s["seat"]: s["name"] for s in site.view(game_id)["seats"]}
    for seat, stack in enumerate(result["stacks"]):
        expect(panel).to_contain_text(names[seat])
        expect(panel).to_contain_text(str(stack))
    replay = panel.locator("#summary-replay")
    expect(replay).to_have_attribute("href", f"/replay/{game_id}")
    assert not untranslated(visible_text(page))
    site.shot(page, "table-azi-final-desktop")
    page.set_viewport_size({"width": 390, "height": 844})
    assert horizontal_overflow(page) == 0
    site.shot(page, "table-azi-final-phone")
    replay.click()
    page.wait_for_url(f"**/replay/{game_id}")
