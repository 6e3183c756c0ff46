"""Murlan in the browser: three bots and a whole hand played by clicking cards."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import Page, expect

from .helpers import Site, create_from_lobby, seat_of, wait_for_move

pytestmark = pytest.mark.browser

HAND_TIMEOUT_S = 120
"""The page draws the bots' plays at its normal pace, so most of the hand is the
page's drawing: about a minute with the suite's parallel workers on two cores."""


def click_cards(page: Page, cards: list[str]) -> None:
    for card in cards:
        button = page.locator(f'#hand button.card[data-card="{card}"]')
        button.click()
        expect(button).to_have_attribute("aria-pressed", "true")


def test_murlan_hand_by_clicking(page: Page, site: Site) -> None:
    game_id = create_from_lobby(page, "murlan", "Ana <i>&amp;")
    token = seat_of(page, game_id)["token"]
    assert token not in page.url
    expect(page.locator("#seats .seat")).to_have_count(4)
    # The name is text, never markup.
    expect(page.locator("#seats .seat.me .name")).to_contain_text("Ana <i>&amp;")
    assert page.locator("#seats i").count() == 0
    expect(page.locator("#hand button.card")).not_to_have_count(0)
    expect(page.locator("#conn")).to_have_text("live")

    tried_illegal = False
    deadline = time.monotonic() + HAND_TIMEOUT_S
    while True:
        view = site.view(game_id, token)
        if sum(view["table"]["scores"]) > 0:
            break
        assert time.monotonic() < deadline, "the hand did not end in time"
        if not view["legal_moves"] or view["table"]["phase"] != "playing":
            time.sleep(0.05)
            continue
        # It is our turn: once the page has drawn this step (it shows the bots'
        # plays at its pace), it must say so and offer the moves.
        expect(page.locator("#meta")).to_have_attribute("data-version", str(view["version"]))
        expect(page.locator("#status")).to_have_class("status mine")
        play = page.locator('#actions button[data-action="play"]')
        expect(play).to_be_visible()
        hand = view["hand"]
        can_play = any(m["action"] == "play" for m in view["legal_moves"])
        if not tried_illegal and can_play:
            # Two cards of different ranks are never a combination.
            pair = next((a, b) for a in hand for b in hand if a[0] != b[0])
            click_cards(page, list(pair))
            expect(page.locator("#selection-hint")).to_contain_text("not a legal play")
            # the page does not offer a play it calls illegal
            expect(play).to_be_disabled()
            page.keyboard.press("Escape")
            expect(page.locator('#hand button.card[aria-pressed="true"]')).to_have_count(0)
            tried_illegal = True
        version = view["version"]
        moves = view["legal_moves"]
        chosen = next((m for m in moves if m["action"] == "play"), moves[0])
        if chosen["action"] == "play":
            click_cards(page, chosen["cards"])
            expect(page.locator("#selection-hint")).to_contain_text("a legal play")
            play.click()
        else:
            page.locator('#actions button[data-action="pass"]').click()
        wait_for_move(page, site, game_id, token, version)
        expect(page.locator("#move-error")).to_be_empty()

    assert tried_illegal
    scores = site.view(game_id)["table"]["scores"]
    assert sorted(scores) == [0, 1, 2, 3]
    # The page shows the bots' last plays one after another at its normal pace: it
    # reaches the end of the hand a little after the server.
    expect(page.locator("#log")).to_contain_text("Hand 1 is over", timeout=60_000)
    expect(page.locator("#board")).to_contain_text("Hand 2", timeout=30_000)
    site.shot(page, "murlan-table")
