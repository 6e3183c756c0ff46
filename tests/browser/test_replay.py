"""The lobby and the replay viewer: find a finished game, step through it,
see every hand as dealt and the verification badge."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from .helpers import Site, wait_for

pytestmark = pytest.mark.browser


def finished_hazari(site: Site) -> str:
    """A Hazari match of four bots played to its end: a short target, but
    above 360 so that it takes two deals or more."""
    game_id: str = site.api("POST", "/games", json={"game": "hazari", "options": {"target": 400}})[
        "game_id"
    ]
    for n in range(4):
        site.api("POST", f"/games/{game_id}/seats", json={"name": f"Robo {n}", "bot": True})
    wait_for(
        "the match to end",
        lambda: (v := site.view(game_id))["status"] == "ended" and v["server_seed"],
        timeout_s=30,
    )
    return game_id


def hazari_place(card: str) -> tuple[int, int]:
    return (-"23456789TJQKA".index(card[0]), "CDHS".index(card[1]))


def step_text(page: Page) -> str:
    return page.locator("#step-pos").inner_text()


def test_replay_of_a_finished_game(page: Page, site: Site) -> None:
    game_id = finished_hazari(site)
    replay = site.api("GET", f"/games/{game_id}/replay")

    page.goto("/")
    page.select_option('#filter-form [name="status"]', "ended")
    page.click('#filter-form button[type="submit"]')
    row = page.locator(f'#games tr[data-game="{game_id}"]')
    expect(row).to_contain_text("Robo 0")
    site.shot(page, "lobby")
    row.get_by_role("link", name="Replay").click()
    page.wait_for_url(f"**/replay/{game_id}")

    badge = page.locator("#verify-badge")
    expect(badge).to_contain_text("Shuffle verified")
    expect(badge).to_have_class("badge ok")
    # Who chose each seat's seed: the bots' derived from the committed seed.
    robo = next(s for s in replay["seats"] if s["bot"])
    assert robo["seed_origin"] == "derived"
    expect(page.locator("#seeds")).to_contain_text(
        f"{robo['client_seed']} (derived by the server from its committed seed: "
        f"HMAC(server_seed, \u201cclient-seed:{robo['seat']}\u201d))"
    )
    # The first deal's hands as dealt, all four of them, 13 cards each, sorted as Hazari's
    # table sorts a hand: the highest rank first, then clubs, diamonds, hearts, spades.
    hands = page.locator("#hands .hand-row")
    expect(hands).to_have_count(4)
    first = replay["deals"][0]["hands"]
    for seat in range(4):
        cards = hands.nth(seat).locator(".card")
        shown = cards.evaluate_all("cs => cs.map(c => c.dataset.card)")
        assert shown == sorted(first[str(seat)], key=hazari_place), shown
    expect(page.locator("#replay-board .card.played")).to_have_count(0)
    start = step_text(page)

    # Forward with the keyboard and the buttons, then back again.
    page.keyboard.press("ArrowRight")
    expect(page.locator("#current")).to_contain_text("says up")
    assert step_text(page) != start
    for _ in range(7):
        page.locator("#forward").click()
    expect(page.locator("#current")).to_contain_text("Round")
    expect(page.locator("#replay-board .card.played")).not_to_have_count(0)
    expect(page.locator("#events li.current")).to_have_count(1)
    page.keyboard.press("ArrowLeft")
    page.locator("#back").click()
    page.locator("#next-deal").click()
    expect(page.locator("#replay-board h2")).to_contain_text("Deal 2")
    expect(page.locator("#replay-board .card.played")).to_have_count(0)
    page.keyboard.press("PageUp")
    expect(page.locator("#replay-board h2")).to_contain_text("Deal 1")
    assert step_text(page) == start
    page.keyboard.press("End")
    expect(page.locator("#current")).to_contain_text("server seed is revealed")
    expect(page.locator("#forward")).to_be_disabled()
    site.shot(page, "replay")

    # How to check it yourself.
    page.locator("#verify-help").click()
    page.wait_for_url("**/fairness")
    page.locator("#doc-link a").click()
    page.wait_for_url("**/fairness/document")
    expect(page.locator("#fairness-doc")).to_contain_text("cardroom-shuffle-v1")
    site.shot(page, "fairness")
