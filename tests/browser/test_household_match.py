"""A whole Murlan match at the web table, from two tabs of one seat and a spectator's tab.

One person plays a seat against three bots with the table open in two tabs
of the same browser (the same localStorage, so the same seat token), and a
spectator watches from another browser; all three tabs come from one address
(127.0.0.1) under the default rate budgets. The seat's moves are made by
clicking, in one tab then the other, at a brisk human pace (a move a second
at most, the pace the moves budget is made for). The match is played to its
end, every tab shows that it is over, and no request of any tab was answered
429 (the pages retry a 429 quietly, so the test listens to every response).

Murlan has no table option that shortens a match (the target is 21 points),
so the seat keeps it short its own way: it always plays its longest legal
combination, so it goes out early and the bots finish each hand without it.

What the test relies on in the page: ``#hand button.card[data-card]`` and
``aria-pressed``, ``#actions button[data-action=play|pass|give_back]``,
``#move-error``, ``#replay-link`` (shown once the game has ended) and
``#seats .seat``; what is legal and whose turn it is comes from the API.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Response, expect

from service.api.limits import Limits

from .helpers import Site, create_from_lobby, keep_pace, seat_of, wait_for_move

pytestmark = [pytest.mark.browser, pytest.mark.slow]

MATCH_TIMEOUT_S = 600
SECONDS_PER_MOVE = 1.0
"""The seat's pace: at most a move a second, as a quick person plays."""


class Tabs:
    """The pages of the test and every response any of them received."""

    def __init__(self) -> None:
        self.statuses: list[tuple[int, str]] = []
        self.errors: list[str] = []

    def watch(self, page: Page, name: str) -> Page:
        page.on("response", lambda r: self._response(r))
        page.on("pageerror", lambda exc: self.errors.append(f"{name}: page error: {exc}"))
        page.on(
            "console",
            lambda msg: (
                self.errors.append(f"{name}: console: {msg.text}")
                if msg.type == "error" and "Failed to load resource" not in msg.text
                else None
            ),
        )
        return page

    def _response(self, response: Response) -> None:
        self.statuses.append((response.status, response.url))

    def refused(self) -> list[str]:
        return [url for status, url in self.statuses if status == 429]


def new_context(browser: Browser, site: Site) -> BrowserContext:
    context = browser.new_context(base_url=site.url, viewport={"width": 1280, "height": 900})
    context.set_default_timeout(20_000)
    # The tabs show each step as it arrives (the table tests cover the display's pace):
    # this test is about the budgets a household's tabs spend.
    keep_pace(context)
    return context


def play(page: Page, move: dict[str, Any]) -> None:
    """Make ``move`` by clicking in ``page``: select its cards, then its button."""
    action = move["action"]
    cards = move.get("cards") or ([move["card"]] if "card" in move else [])
    button = page.locator(f'#actions button[data-action="{action}"]')
    button.wait_for(state="visible")  # the tab has drawn this turn (from its live stream)
    for card in cards:
        card_button = page.locator(f'#hand button.card[data-card="{card}"]')
        if card_button.get_attribute("aria-pressed") != "true":
            card_button.click()
        expect(card_button).to_have_attribute("aria-pressed", "true")
    expect(button).to_be_enabled()
    button.click()


def choose(moves: list[dict[str, Any]]) -> dict[str, Any]:
    """The longest legal play (the seat goes out soon, and the bots finish the
    hand without it); a pass only when nothing can be played; else the first
    card that may be given back."""
    plays = [m for m in moves if m["action"] == "play"]
    if plays:
        return max(plays, key=lambda m: len(m["cards"]))
    return next((m for m in moves if m["action"] == "pass"), moves[0])


def test_a_household_plays_a_whole_murlan_match_without_a_429(
    browser: Browser, site: Site, default_budgets: Limits
) -> None:
    tabs = Tabs()
    home = new_context(browser, site)
    away = new_context(browser, site)
    try:
        first = tabs.watch(home.new_page(), "first tab")
        game_id = create_from_lobby(first, "murlan", "Household")
        token = seat_of(first, game_id)["token"]
        second = tabs.watch(home.new_page(), "second tab")
        second.goto(f"/table/{game_id}")
        spectator = tabs.watch(away.new_page(), "spectator")
        spectator.goto(f"/table/{game_id}")
        for page in (first, second, spectator):
            expect(page.locator("#seats .seat")).to_have_count(4)
        for page in (first, second):
            expect(page.locator("#hand button.card")).not_to_have_count(0)
        assert spectator.locator("#hand button.card").count() == 0

        moves = 0
        last_move_at = 0.0
        deadline = time.monotonic() + MATCH_TIMEOUT_S
        while True:
            view = site.view(game_id, token)
            if view["status"] == "ended":
                break
            assert time.monotonic() < deadline, (
                f"the match did not end: {moves} moves made, version {view['version']}, "
                f"scores {view['table'].get('scores')}, {len(tabs.refused())} answers 429"
            )
            legal = view["legal_moves"]
            if not legal:
                time.sleep(0.05)
                continue
            page = (first, second)[moves % 2]
            time.sleep(max(0.0, last_move_at + SECONDS_PER_MOVE - time.monotonic()))
            last_move_at = time.monotonic()
            # Act on what the tab shows: wait until it has drawn this very step.
            expect(page.locator("#meta")).to_contain_text(f"step {view['version']} ·")
            play(page, choose(legal))
            wait_for_move(page, site, game_id, token, view["version"])
            moves += 1

        final = site.view(game_id)
        assert final["status"] == "ended"
        assert final["result"]["winners"], final["result"]
        for page in (first, second, spectator):
            expect(page.locator("#replay-link")).to_be_visible()
            expect(page.locator("#move-error")).to_be_empty()
        assert moves > 20, moves  # a whole match, not one hand
        assert not tabs.refused(), tabs.refused()
        assert not [s for s, _ in tabs.statuses if s >= 500], tabs.statuses
        assert not tabs.errors, tabs.errors
        site.shot(first, "household-match-first-tab")
        site.shot(spectator, "household-match-spectator")
    finally:
        home.close()
        away.close()
