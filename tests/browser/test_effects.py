"""The table's opt-in effects: sounds made with WebAudio and cards moving from the hand (or a
seat) to the table, both off until switched on, kept in the browser, and no movement when
the device asks for reduced motion."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from .helpers import Site, collect_errors, create_from_lobby, keep_pace, seat_of, wait_for_move

pytestmark = pytest.mark.browser

FX = "#fx"


def counted(page: Page, name: str) -> int:
    return int(page.locator(FX).get_attribute(f"data-{name}") or 0)


def play_until(page: Page, site: Site, game_id: str, done: str, timeout_s: float = 30) -> None:
    """Play this seat's turns from the page (the first legal move) until `done` (a script
    returning true) holds."""
    token = seat_of(page, game_id)["token"]
    deadline = time.monotonic() + timeout_s
    while not page.evaluate(done):
        assert time.monotonic() < deadline, f"timed out waiting for {done}"
        view = site.view(game_id, token)
        moves = view["legal_moves"]
        if moves and page.locator("#status.mine").count():
            move = moves[0]
            for card in move.get("cards", []):
                page.locator(f'#hand button.card[data-card="{card}"]').click()
            action = "play" if move["action"] == "play" else "pass"
            page.locator(f'#actions button[data-action="{action}"]').click()
            wait_for_move(page, site, game_id, token, view["version"])
        else:
            page.wait_for_timeout(100)


@pytest.fixture
def still(browser: Browser, site: Site) -> Iterator[Page]:
    """A page whose device asks for reduced motion."""
    context: BrowserContext = browser.new_context(
        base_url=site.url, viewport={"width": 1280, "height": 900}, reduced_motion="reduce"
    )
    errors: list[str] = []
    page = collect_errors(context.new_page(), errors)
    yield page
    context.close()
    assert not errors, errors


def test_sounds_and_movement_are_off_until_switched_on(page: Page, site: Site) -> None:
    keep_pace(page)
    game_id = create_from_lobby(page, "murlan", "Ida")
    sound, motion = page.locator("#fx-sound"), page.locator("#fx-motion")
    expect(sound).not_to_be_checked()
    expect(motion).not_to_be_checked()
    play_until(page, site, game_id, "document.querySelector('#last-play') !== null")
    assert (counted(page, "sounds"), counted(page, "moves")) == (0, 0)
    sound.check()
    motion.check()
    # a sound at once (the switch's own click lets the page start audio), then with plays
    page.wait_for_function("document.querySelector('#fx').dataset.sounds >= 1")
    play_until(page, site, game_id, "Number(document.querySelector('#fx').dataset.moves) >= 1")
    assert counted(page, "sounds") >= 2  # the switch's and a play's
    site.shot(page, "table-effects-on")
    # kept in this browser
    page.reload()
    expect(page.locator("#fx-sound")).to_be_checked()
    expect(page.locator("#fx-motion")).to_be_checked()
    page.locator("#fx-sound").uncheck()
    page.reload()
    expect(page.locator("#fx-sound")).not_to_be_checked()


def test_no_movement_when_the_device_asks_for_reduced_motion(still: Page, site: Site) -> None:
    keep_pace(still)
    still.add_init_script("localStorage.setItem('cardroom.motion', 'on')")
    game_id = create_from_lobby(still, "murlan", "Ida")
    motion = still.locator("#fx-motion")
    expect(motion).to_be_disabled()
    expect(still.locator(".fx-still")).to_have_text(
        "Your device asks for less motion: cards do not move."
    )
    play_until(still, site, game_id, "document.querySelectorAll('#log li').length >= 8")
    assert counted(still, "moves") == 0
    still.set_viewport_size({"width": 390, "height": 844})
    site.shot(still, "table-effects-still-phone")
