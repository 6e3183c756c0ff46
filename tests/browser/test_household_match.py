"""A Murlan match at the web table, from two tabs of one seat and a spectator's tab.

One person plays a seat against three bots with the table open in two tabs
of the same browser (the same localStorage, so the same seat token), and a
spectator watches from another browser; all three tabs come from one address
(127.0.0.1) under the default rate budgets. The seat's moves are made by
clicking, in one tab then the other, at a brisk human pace (a move a second
at most, the pace the moves budget is made for). No request of any tab is
answered 429 (the pages retry a 429 quietly, so the test listens to every
response).

The match is played in two tests, which run side by side: its first hands
from the lobby on (the deal that starts a match, the exchanges of the next
ones), and its end, every tab showing that it is over. The second test gets
there by playing the seat through the API at full speed, budgets out of
reach, until someone is within a hand of the target: the game then has the
events of a long match behind it, and the tabs play its last hands under
fresh default budgets (when two players reach the target together it rises
by 10, and the API plays on to the new target's last hands). The hands in
between are hands like these, and at a move a second the seat's moves
budget (60/minute, a bucket of 60) never empties however long the match, so
nothing is lost by not playing them at human pace.

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

from .helpers import (
    Site,
    budgets_of_a_deployment,
    create_from_lobby,
    game_id_of,
    keep_pace,
    seat_of,
    wait_for_move,
)

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


FIRST_HANDS = 3
"""The first test plays this many hands: the first deal and two with an exchange."""
NEAR_THE_END = 3
"""The second test's tabs take over once someone is this close to the target
(a hand's winner scores 3), at the next turn of the seat."""


def open_tabs(tabs: Tabs, home: BrowserContext, away: BrowserContext, site: Site) -> list[Page]:
    """The first tab creates the game in the lobby and sits down; returns the first,
    the second (the same seat) and the spectator's tab, the last two not yet open."""
    first = tabs.watch(home.new_page(), "first tab")
    create_from_lobby(first, "murlan", "Household")
    return [
        first,
        tabs.watch(home.new_page(), "second tab"),
        tabs.watch(away.new_page(), "spectator"),
    ]


def look_at_the_table(pages: list[Page], game_id: str) -> None:
    first, second, spectator = pages
    second.goto(f"/table/{game_id}")
    spectator.goto(f"/table/{game_id}")
    for page in pages:
        expect(page.locator("#seats .seat")).to_have_count(4)
    for page in (first, second):
        expect(page.locator("#hand button.card")).not_to_have_count(0)
    assert spectator.locator("#hand button.card").count() == 0


def play_at_pace(
    site: Site, tabs: Tabs, pages: list[Page], game_id: str, token: str, done: Any
) -> int:
    """Make the seat's moves by clicking, a tab each in turn, at most one a second,
    until ``done(view)``; returns how many were made."""
    moves = 0
    last_move_at = 0.0
    deadline = time.monotonic() + MATCH_TIMEOUT_S
    while True:
        view = site.view(game_id, token)
        if done(view):
            return moves
        assert time.monotonic() < deadline, (
            f"the match did not get there: {moves} moves made, version {view['version']}, "
            f"scores {view['table'].get('scores')}, {len(tabs.refused())} answers 429"
        )
        legal = view["legal_moves"]
        if not legal:
            time.sleep(0.05)
            continue
        page = pages[moves % 2]
        time.sleep(max(0.0, last_move_at + SECONDS_PER_MOVE - time.monotonic()))
        last_move_at = time.monotonic()
        # Act on what the tab shows: wait until it has drawn this very step.
        expect(page.locator("#meta")).to_have_attribute("data-version", str(view["version"]))
        play(page, choose(legal))
        wait_for_move(page, site, game_id, token, view["version"])
        moves += 1


def nothing_went_wrong(tabs: Tabs, pages: list[Page]) -> None:
    for page in pages:
        expect(page.locator("#move-error")).to_be_empty()
    assert not tabs.refused(), tabs.refused()
    assert not [s for s, _ in tabs.statuses if s >= 500], tabs.statuses
    assert not tabs.errors, tabs.errors


def test_a_household_plays_the_first_hands_of_a_murlan_match_without_a_429(
    browser: Browser, site: Site, default_budgets: Limits
) -> None:
    tabs = Tabs()
    home = new_context(browser, site)
    away = new_context(browser, site)
    try:
        pages = open_tabs(tabs, home, away, site)
        game_id = game_id_of(pages[0])
        token = seat_of(pages[0], game_id)["token"]
        look_at_the_table(pages, game_id)

        def hands_played(view: dict[str, Any]) -> bool:
            return view["status"] == "ended" or view["table"]["hand_number"] >= FIRST_HANDS

        moves = play_at_pace(site, tabs, pages, game_id, token, hands_played)
        assert moves > 20, moves  # whole hands, not one
        nothing_went_wrong(tabs, pages)
        site.shot(pages[0], "household-first-hands-first-tab")
    finally:
        home.close()
        away.close()


def fast_forward(site: Site, game_id: str, token: str) -> None:
    """Play the seat through the API, as fast as the bots answer, until someone is
    within :data:`NEAR_THE_END` points of the target and it is the seat's turn."""
    deadline = time.monotonic() + MATCH_TIMEOUT_S
    while True:
        view = site.view(game_id, token)
        assert view["status"] == "playing", view["status"]
        assert time.monotonic() < deadline, f"stuck at version {view['version']}"
        legal = view["legal_moves"]
        if not legal:
            time.sleep(0.01)
            continue
        table = view["table"]
        if max(table["scores"]) >= table["target"] - NEAR_THE_END:
            return
        site.api("POST", f"/games/{game_id}/moves", token, json={"move": choose(legal)})


def test_a_household_plays_a_murlan_match_to_its_end_without_a_429(
    browser: Browser, site: Site
) -> None:
    tabs = Tabs()
    home = new_context(browser, site)
    away = new_context(browser, site)
    try:
        pages = open_tabs(tabs, home, away, site)
        first, _, spectator = pages
        game_id = game_id_of(first)
        token = seat_of(first, game_id)["token"]
        moves, looked = 0, False
        while True:
            fast_forward(site, game_id, token)
            with budgets_of_a_deployment(site):
                if not looked:
                    look_at_the_table(pages, game_id)
                    looked = True
                table = site.view(game_id)["table"]
                hand, target = table["hand_number"], table["target"]

                def over_or_target_raised(view: dict[str, Any], target: int = target) -> bool:
                    # When two or more reach the target it rises by 10 and the match
                    # goes on: the seat then plays through the API again, up to the
                    # new target's last hands.
                    return view["status"] == "ended" or view["table"]["target"] > target

                moves += play_at_pace(site, tabs, pages, game_id, token, over_or_target_raised)
                final = site.view(game_id)
                assert final["table"]["hand_number"] >= hand, (final["table"], hand)
                if final["status"] != "ended":
                    continue
                assert final["result"]["winners"], final["result"]
                assert moves > 0, moves
                for page in pages:
                    expect(page.locator("#replay-link")).to_be_visible()
                nothing_went_wrong(tabs, pages)
                break
        site.shot(first, "household-match-first-tab")
        site.shot(spectator, "household-match-spectator")
    finally:
        home.close()
        away.close()
