"""Playing and replaying in the players' languages: a Murlan hand and an Azi hand in Russian
and Albanian, a Hazari replay in Nepali and Hungarian. What the page shows (its text, and the
labels and titles of its buttons and cards) holds no English message of the catalogs, names
typed by players and card faces aside. Screenshots of each language, desktop and phone."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from .helpers import Site, game_id_of, keep_pace, seat_of, wait_for_move
from .i18n_support import english_found, screen_text
from .table_support import EventLog, horizontal_overflow, play_murlan_turn
from .test_replay import finished_hazari

pytestmark = [pytest.mark.browser, pytest.mark.slow]

HAND_TIMEOUT_S = 120
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


class Session:
    """A browser profile that has chosen `lang` (and the instant pace), its page, its errors."""

    def __init__(self, browser: Browser, site: Site, lang: str) -> None:
        self.lang = lang
        self.site = site
        self.context: BrowserContext = browser.new_context(base_url=site.url, viewport=DESKTOP)
        self.context.set_default_timeout(20_000)
        keep_pace(self.context, lang=lang)
        self.page: Page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        self.seen: list[str] = []

    def look(self) -> None:
        """Keep what the page shows now, for the scan at the end."""
        self.seen.append(screen_text(self.page))

    def shots(self, name: str) -> None:
        """The page at desktop and phone widths, its language in the file's name."""
        page = self.page
        self.look()
        self.site.shot(page, f"i18n-{name}-{self.lang}-desktop")
        page.set_viewport_size(PHONE)
        page.wait_for_timeout(100)  # one frame for the layout to settle before the picture
        self.look()
        self.site.shot(page, f"i18n-{name}-{self.lang}-phone")
        assert horizontal_overflow(page) == 0, f"{name} in {self.lang} is wider than a phone"
        page.set_viewport_size(DESKTOP)

    def assert_no_english(self, names: set[str]) -> None:
        found = english_found("\n".join(self.seen), self.lang, names)
        assert not found, f"English on the {self.lang} page: {found}"


@pytest.fixture
def session(request: pytest.FixtureRequest, browser: Browser, site: Site) -> Iterator[Session]:
    s = Session(browser, site, request.param)
    try:
        yield s
    finally:
        s.context.close()
    assert not s.errors, s.errors


def create_game(s: Session, game: str, name: str, fill: dict[str, str] | None = None) -> str:
    """Create the game in the lobby (in the chosen language), sitting down with bots."""
    page = s.page
    page.goto("/")
    expect(page.locator("html")).to_have_attribute("lang", s.lang)
    page.fill("#player-name", name)
    page.select_option("#game", game)
    for field, value in (fill or {}).items():
        page.fill(f'#create-form fieldset[data-game="{game}"] [name="{field}"]', value)
    s.look()
    page.locator('#create-form button[type="submit"]').click()
    page.wait_for_url("**/table/**")
    return game_id_of(page)


def names_of(site: Site, game_id: str) -> set[str]:
    return {seat["name"] for seat in site.view(game_id)["seats"]}


@pytest.mark.parametrize("session", ["ru", "sq"], indirect=True)
def test_a_murlan_hand_in_the_language(session: Session, site: Site) -> None:
    s = session
    game_id = create_game(s, "murlan", "Ана" if s.lang == "ru" else "Ana")
    token = seat_of(s.page, game_id)["token"]
    shot = False
    deadline = time.monotonic() + HAND_TIMEOUT_S
    log = EventLog(site, game_id, token)
    while not log.has("HandEnded"):
        assert time.monotonic() < deadline, "the hand did not end in time"
        view = site.view(game_id, token)
        if view["legal_moves"] and view["status"] == "playing":
            s.page.wait_for_selector("#status.mine", state="attached", timeout=30_000)
            # At your turn, with a card selected: the hint on the selection shows too.
            s.look()
            if not shot and view["table"].get("table"):
                s.page.locator("#hand button.card").first.click()
                s.shots("murlan-turn")
                s.page.locator("#hand button.card").first.click()
                shot = True
        if not play_murlan_turn(s.page, site, game_id, token):
            time.sleep(0.05)
    expect(s.page.locator('#summary[data-kind="HandEnded"]')).to_be_visible(timeout=60_000)
    s.shots("murlan-hand-over")
    s.assert_no_english(names_of(site, game_id))


def azi_move(page: Page, view: dict[str, Any]) -> None:
    """Click one of the seat's legal moves: call, play or discard a card, decline, else fold."""
    moves = {m["action"] for m in view["legal_moves"]}
    if "call" in moves:
        page.locator('#actions button[data-action="call"]').click()
    elif "play" in moves or "discard" in moves:
        action = "play" if "play" in moves else "discard"
        page.locator("#hand button.card:not([disabled])").first.click()
        page.locator(f'#actions button[data-action="{action}"]').click()
    elif "bet" in moves:
        page.locator('#actions button[data-action="bet"]').click()
    elif "decline" in moves:
        page.locator('#actions button[data-action="decline"]').click()
    else:
        page.locator('#actions button[data-action="fold"]').click()


@pytest.mark.parametrize("session", ["ru", "sq"], indirect=True)
def test_an_azi_hand_in_the_language(session: Session, site: Site) -> None:
    s = session
    game_id = create_game(s, "azi", "Зара" if s.lang == "ru" else "Zara", {"seats": "3"})
    token = seat_of(s.page, game_id)["token"]
    shot = False
    deadline = time.monotonic() + HAND_TIMEOUT_S
    log = EventLog(site, game_id, token)
    while not log.has("PotSettled"):
        assert time.monotonic() < deadline, "the Azi hand did not end in time"
        view = site.view(game_id, token)
        if not view["legal_moves"] or view["status"] != "playing":
            time.sleep(0.05)
            continue
        expect(s.page.locator("#status")).to_have_class("status mine")
        s.look()
        if not shot and any(m["action"] == "play" for m in view["legal_moves"]):
            s.page.locator("#hand button.card:not([disabled])").first.click()
            s.shots("azi-turn")
            s.page.locator("#hand button.card:not([disabled])").first.click()
            shot = True
        azi_move(s.page, view)
        wait_for_move(s.page, site, game_id, token, view["version"])
    s.page.wait_for_timeout(300)  # the instant pace draws the settled pot on the next frame
    s.shots("azi-hand-over")
    s.assert_no_english(names_of(site, game_id))


@pytest.mark.parametrize("session", ["ne", "hu"], indirect=True)
def test_a_hazari_replay_in_the_language(session: Session, site: Site) -> None:
    s = session
    game_id = finished_hazari(site)
    page = s.page
    page.goto(f"/replay/{game_id}")
    expect(page.locator("#verify-badge")).to_have_class("badge ok")
    expect(page.locator("#hands .hand-row")).to_have_count(4)
    s.shots("hazari-replay-start")
    # Through the first deal step by step: the says-up, each round and its winner.
    played = page.locator("#replay-board .card.played")
    for _ in range(30):
        page.locator("#forward").click()
        s.look()
        if played.count():
            break
    expect(played).not_to_have_count(0)
    s.shots("hazari-replay-round")
    page.keyboard.press("End")
    expect(page.locator("#forward")).to_be_disabled()
    s.shots("hazari-replay-end")
    s.assert_no_english(names_of(site, game_id))
