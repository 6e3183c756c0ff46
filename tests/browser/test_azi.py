"""Azi in the browser: bid (a bet and a call), play the cards, then leave."""

from __future__ import annotations

import time
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from .helpers import Site, create_from_lobby, keep_pace, seat_of, wait_for_move

pytestmark = pytest.mark.browser

TIMEOUT_S = 60
MODEST_BID = 500
"""Zara calls bids up to a tenth of her buy-in and folds to bigger ones: a
call of a bot's all-in could end the match (one of the two busts) before she
has had the chance to leave."""


def actions(view: dict[str, Any]) -> set[str]:
    return {m["action"] for m in view["legal_moves"]}


def bet_and_call_settled(site: Site, game_id: str) -> bool:
    """Whether some hand had a bet and a call and its pot was settled."""
    events = site.api("GET", f"/games/{game_id}/events?limit=1000")["events"]
    seen: set[str] = set()
    for event in events:
        if event["type"] == "AntesPaid":
            seen = set()
        seen.add(event["type"])
        if event["type"] == "PotSettled" and {"BetPlaced", "Called"} <= seen:
            return True
    return False


def test_azi_hand_with_a_bet_and_a_call(page: Page, site: Site) -> None:
    # This test is about bidding and playing by clicking, not the display's pace (the
    # table tests cover that): the page shows each step as soon as it arrives.
    keep_pace(page)
    game_id = create_from_lobby(page, "azi", "Zara", {"seats": "2", "buy_in": "5000"})
    token = seat_of(page, game_id)["token"]
    expect(page.locator("#board #pot")).to_contain_text("Pot")
    expect(page.locator("#board #trump")).to_contain_text("Trump")

    left = shot = False
    deadline = time.monotonic() + TIMEOUT_S
    while True:
        view = site.view(game_id, token)
        if view["status"] == "ended":
            break
        assert time.monotonic() < deadline, "the Azi hands did not finish in time"
        moves = actions(view)
        if not moves:
            time.sleep(0.05)
            continue
        table = view["table"]
        # Act on what the page shows: wait until it has drawn this very step (it shows
        # other seats' plays one after another, so it may still be a step or two behind).
        expect(page.locator("#meta")).to_have_attribute("data-version", str(view["version"]))
        expect(page.locator("#status")).to_have_class("status mine")
        if not left and bet_and_call_settled(site, game_id):
            # Leaving takes effect once the hand being played is over.
            page.locator('#actions button[data-action="leave"]').click()
            left = True
        elif "bet" in moves and table["bidding"]["highest"] == 0:
            bets = [m["amount"] for m in view["legal_moves"] if m["action"] == "bet"]
            amount = page.locator("#bet-amount")
            expect(amount).to_have_attribute("min", str(min(bets)))
            expect(amount).to_have_attribute("max", str(max(bets)))
            amount.fill(str(min(bets) + 5))
            page.locator('#actions button[data-action="bet"]').click()
        elif "call" in moves and table["bidding"]["highest"] <= MODEST_BID:
            page.locator('#actions button[data-action="call"]').click()
        elif "play" in moves:
            if table["trick"] and not shot:
                site.shot(page, "azi-table")
                shot = True
            page.locator("#hand button.card:not([disabled])").first.click()
            page.locator('#actions button[data-action="play"]').click()
        elif "decline" in moves:
            page.locator('#actions button[data-action="decline"]').click()
        else:
            page.locator('#actions button[data-action="fold"]').click()
        wait_for_move(page, site, game_id, token, view["version"])
        expect(page.locator("#move-error")).to_be_empty()

    assert bet_and_call_settled(site, game_id)
    assert left, f"the match ended before Zara could leave: {site.view(game_id)['result']}"
    expect(page.locator("#log")).to_contain_text("Zara leaves with")
    expect(page.locator("#status")).to_contain_text("Game over")
    expect(page.locator("#replay-link")).to_be_visible()
    if not shot:
        site.shot(page, "azi-table")
