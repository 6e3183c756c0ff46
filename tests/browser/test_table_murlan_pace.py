"""The Murlan table at a pace a person can follow: every bot play is shown on the table, and
the hand ends with a panel of places and points by name."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import Browser, expect

from .helpers import Site, create_from_lobby, keep_pace, seat_of
from .table_support import (
    RECORDER,
    EventLog,
    events_of,
    play_murlan_turn,
    untranslated,
    visible_text,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

HAND_TIMEOUT_S = 120


def test_every_bot_play_is_seen_and_the_hand_ends_with_a_summary(
    browser: Browser, site: Site
) -> None:
    context = browser.new_context(base_url=site.url, viewport={"width": 1280, "height": 800})
    context.set_default_timeout(20_000)
    context.add_init_script(RECORDER)
    # The fast pace (0.25 s a play) keeps the test short; every play is still held alone.
    keep_pace(context, "fast")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        game_id = create_from_lobby(page, "murlan", "Ana")
        token = seat_of(page, game_id)["token"]
        expect(page.locator("#pace")).to_have_value("fast")
        deadline = time.monotonic() + HAND_TIMEOUT_S
        log = EventLog(site, game_id, token)
        while not log.has("HandEnded"):
            assert time.monotonic() < deadline, "the hand did not end in time"
            if not play_murlan_turn(page, site, game_id, token):
                time.sleep(0.05)

        # The page plays the hand out at its own pace: wait for its end-of-hand panel.
        panel = page.locator('#summary[data-kind="HandEnded"]')
        expect(panel).to_be_visible(timeout=60_000)
        events = events_of(site, game_id, token)
        seats = {s["seat"]: s for s in site.view(game_id)["seats"]}
        ended = next(e for e in events if e["type"] == "HandEnded")
        # Plays made before the page drew its first view (the bots may lead at once) are
        # in its log; every one after it must have been on the table.
        since = page.evaluate("window.__since")
        assert since is not None
        bot_plays = [
            e
            for e in events
            if e["type"] in ("CardsPlayed", "Passed")
            and seats[e["seat"]]["bot"]
            and since < e["version"] < ended["version"]
        ]
        assert bot_plays, "the bots made no play"
        shown = page.evaluate("window.__plays")
        shown_versions = {p["version"] for p in shown}
        missed = [e for e in bot_plays if e["version"] not in shown_versions]
        assert not missed, f"{len(missed)} of {len(bot_plays)} bot plays never shown: {missed[:3]}"
        # Each shown play names its player and, for cards, shows them as symbols.
        by_version = {p["version"]: p for p in shown}
        for e in bot_plays:
            text = by_version[e["version"]]["text"]
            assert seats[e["seat"]]["name"] in text, text
            assert not untranslated(text), text

        # The panel: every player by name, their place and points this hand, and totals.
        recorded = page.evaluate("window.__panels")
        hand_panel = next(p for p in recorded if p["kind"] == "HandEnded")
        text = hand_panel["text"]
        assert "Hand 1 is over" in text
        for info in seats.values():
            assert info["name"] in text
        for points in set(ended["points"]):
            assert (f"{points} point" if points == 1 else f"{points} points") in text
        assert "1 points" not in text
        first = seats[ended["order"][0]]["name"]
        assert f"{first} went out first" in text
        assert not untranslated(text), text
        expect(page.locator("#log")).to_contain_text("Hand 1 is over")
        assert not untranslated(visible_text(page))
        site.shot(page, "table-murlan-hand-summary-desktop")
        # The panel stays until closed.
        page.locator("#summary-close").click()
        expect(page.locator("#summary")).to_be_hidden()
    finally:
        context.close()
    assert not errors, errors
