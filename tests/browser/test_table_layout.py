"""The table at the moment of a decision, on a desktop (1280x800) and on phones (390x844 and
360x740), in English and in other languages: what the player must see to decide (the play to
beat, the pot, the trump and the highest bid, the last deal's rounds) is on the screen
together with the hand and the move buttons; no two targets overlap and each is at least
44x44 px on a phone; axe-core finds no WCAG 2 AA violation (contrast included). The games
are brought to a turn of Ada's through the API once for the module (no turn limit: the bots
wait for her); each screen only looks. The keyboard: focus stays on the hand after a move,
the shortcuts' list opens with ``?``, and keyboard hints are not shown on a touch phone."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, ViewportSize, expect

from .helpers import Site, collect_errors, wait_for
from .screen_checks import assert_accessible, in_view, targets
from .table_support import context, horizontal_overflow, shot_screen

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.xdist_group("table-layout")]

DESKTOP: ViewportSize = {"width": 1280, "height": 800}
PHONE: ViewportSize = {"width": 390, "height": 844}
NARROW: ViewportSize = {"width": 360, "height": 740}
TALL: ViewportSize = {"width": 1280, "height": 1100}
NO_LIMIT = {"turn_timeout_s": "none"}
# What the player must see to decide, on the board (desktop) and beside the hand (phone).
FACTS = {
    "murlan": ("#murlan-table", "#decide .decide-line"),
    "hazari": ("#rounds > .round:first-child", "#decide .decide-rounds"),
    "azi": ("#trump", "#decide .pot"),
}


@dataclass
class Turn:
    game: str
    game_id: str
    token: str
    version: int


def sit(site: Site, game_id: str, name: str, bot: bool = False) -> str:
    granted = site.api("POST", f"/games/{game_id}/seats", json={"name": name, "bot": bot})
    return str(granted.get("token") or "")


def seated(
    site: Site, game: str, options: dict[str, Any] | None = None, **body: Any
) -> tuple[str, str]:
    """A new game with Ada in seat 1 and bots in the others, without a turn limit."""
    body["options"] = {**NO_LIMIT, **(options or {})}
    game_id = str(site.api("POST", "/games", json={"game": game, **body})["game_id"])
    token = sit(site, game_id, "Ada")
    seats = site.view(game_id)["seats"]
    for n in range(1, len(seats)):
        sit(site, game_id, f"Robo {n}", bot=True)
    return game_id, token


def turn_when(site: Site, game_id: str, token: str, ready: Any, move: Any) -> Turn:
    """Play Ada through the API (``move(view)``) until ``ready(view)`` at her turn."""
    deadline = time.monotonic() + 60
    while True:
        assert time.monotonic() < deadline, f"no such turn at {game_id}"
        view = site.view(game_id, token)
        if not view["legal_moves"]:
            time.sleep(0.02)
            continue
        if ready(view):
            return Turn(view["game"], game_id, token, view["version"])
        site.api("POST", f"/games/{game_id}/moves", token, json={"move": move(view)})


def first_play(view: dict[str, Any]) -> dict[str, Any]:
    moves = view["legal_moves"]
    return next((m for m in moves if m["action"] == "play"), moves[0])


@pytest.fixture(scope="module")
def turns(site: Site) -> Iterator[dict[str, Turn]]:
    """A Murlan turn with a play to beat, a Hazari arrangement after a deal was played, and
    an Azi bid once the trump is shown."""
    murlan = turn_when(
        site,
        *seated(site, "murlan"),
        lambda v: v["table"]["table"] is not None,
        first_play,
    )
    hazari = turn_when(
        site,
        *seated(site, "hazari", options={"target": 10_000}),
        lambda v: v["table"]["last_deal"] is not None,
        lambda v: v["legal_moves"][0],
    )
    azi = turn_when(
        site,
        *seated(site, "azi", seats=3, options={"buy_in": 5000}),
        lambda v: v["table"]["phase"] == "bidding" and v["table"]["trump"],
        lambda v: next(m for m in v["legal_moves"] if m["action"] != "leave"),
    )
    found = {"murlan": murlan, "hazari": hazari, "azi": azi}
    yield found
    site.end_games({t.game_id for t in found.values()})


def open_turn(page: Page, turn: Turn) -> None:
    """Ada's seat, as her browser keeps it, at her turn as the server has it."""
    page.goto("/")
    page.evaluate(
        """([id, token]) => localStorage.setItem('cardroom.seat.' + id,
             JSON.stringify({ token, seat: 0, name: 'Ada' }))""",
        [turn.game_id, turn.token],
    )
    page.goto(f"/table/{turn.game_id}")
    page.wait_for_function(
        "(v) => Number(document.getElementById('meta').dataset.version) >= v", arg=turn.version
    )
    expect(page.locator("#you.mine")).to_be_visible()


def look_at_the_turn(page: Page, site: Site, turn: Turn, phone: bool, name: str) -> None:
    """What the player needs to decide is on the screen, and every target can be pressed."""
    board, beside = FACTS[turn.game]
    move = '#actions button[data-action]:not([data-action="leave"])'
    assert in_view(page, "#hand button.card"), f"{name}: the hand is off the screen"
    assert in_view(page, move), f"{name}: the moves are off the screen"
    assert in_view(page, beside if phone else board), f"{name}: what to decide on is hidden"
    if turn.game == "murlan":
        # a selected card rises: it still overlaps nothing
        page.locator("#hand button.card >> nth=0").click()
        expect(page.locator("#hand button.card >> nth=0")).to_have_attribute("aria-pressed", "true")
    found = targets(page)
    assert not found["overlaps"], f"{name}: targets overlap: {found['overlaps'][:5]}"
    if phone:
        assert not found["small"], f"{name}: targets under 44x44 px: {found['small'][:8]}"
        assert horizontal_overflow(page) == 0
    assert_accessible(page, name)
    shot_screen(page, site, name)
    if turn.game == "murlan":
        page.keyboard.press("Escape")


@pytest.mark.parametrize(
    ("size", "lang", "phone"),
    [
        pytest.param(DESKTOP, "en", False, id="desktop-en"),
        pytest.param(PHONE, "en", True, id="phone-en"),
        pytest.param(NARROW, "en", True, id="narrow-en"),
        pytest.param(PHONE, "ru", True, id="phone-ru"),
        pytest.param(DESKTOP, "ne", False, id="desktop-ne"),
    ],
)
def test_every_decision_is_on_one_screen(
    browser: Browser,
    site: Site,
    turns: dict[str, Turn],
    size: ViewportSize,
    lang: str,
    phone: bool,
) -> None:
    made = context(browser, site, size, lang, phone)
    errors: list[str] = []
    page = collect_errors(made.new_page(), errors)
    tag = f"{'phone' if phone else 'desktop'}-{size['width']}-{lang}"
    try:
        for game, turn in turns.items():
            open_turn(page, turn)
            look_at_the_turn(page, site, turn, phone, f"table-turn-{game}-{tag}")
        # keyboard hints only where a keyboard is
        hint = page.locator("#keys-open")
        if phone:
            expect(hint).to_be_hidden()
        else:
            expect(hint).to_be_visible()
    finally:
        made.close()
    assert not errors, errors


def test_the_keyboard_keeps_the_hand_and_lists_its_shortcuts(browser: Browser, site: Site) -> None:
    game_id, token = seated(site, "murlan")
    turn = turn_when(site, game_id, token, lambda v: True, first_play)
    made = context(browser, site, DESKTOP, "en", False)
    errors: list[str] = []
    page = collect_errors(made.new_page(), errors)
    try:
        open_turn(page, turn)
        page.keyboard.press("?")
        help_box = page.locator("#keys-help")
        expect(help_box).to_be_visible()
        expect(help_box).to_contain_text("Murlan: pass")
        assert_accessible(page, "keys-help")
        site.shot(page, "table-keys-help-desktop")
        page.keyboard.press("?")
        expect(help_box).to_be_hidden()
        view = site.view(game_id, token)
        play = first_play(view)
        # H goes to the hand, the arrows walk it, Space selects, P plays
        page.keyboard.press("h")
        hand = view["hand"]
        for card in play.get("cards") or []:
            focused = page.evaluate("() => document.activeElement.dataset.card")
            steps = hand.index(card) - hand.index(focused)
            for _ in range(abs(steps)):
                page.keyboard.press("ArrowRight" if steps > 0 else "ArrowLeft")
            expect(page.locator(f'#hand button.card[data-card="{card}"]')).to_be_focused()
            page.keyboard.press("Space")
        page.keyboard.press("p" if play["action"] == "play" else "s")
        wait_for("the move", lambda: site.view(game_id, token)["version"] > view["version"])
        # the focus stays on the hand, not on the page's body
        wait_for(
            "the focus on the hand",
            lambda: page.evaluate("() => Boolean(document.activeElement.closest('#hand'))"),
            timeout_s=5,
        )
    finally:
        made.close()
        site.end_games({game_id})
    assert not errors, errors


def test_the_api_page_fits_a_phone(browser: Browser, site: Site) -> None:
    made = context(browser, site, NARROW, "en", True)
    try:
        page = made.new_page()
        page.goto("/docs")
        expect(page.locator("h1")).to_contain_text("API")
        assert page.evaluate("() => document.documentElement.clientWidth") == NARROW["width"]
        assert horizontal_overflow(page) == 0
        shot_screen(page, site, "api-docs-phone-360")
    finally:
        made.close()


def test_the_azi_notice_is_readable_on_the_felt(browser: Browser, site: Site) -> None:
    """The Azi replay's notice (the game's signature moment) is dark on its light box, on
    the board and beside the hand alike: axe-core's contrast check passes."""
    made = context(browser, site, DESKTOP, "en", False)
    try:
        page = made.new_page()
        page.goto("/rules")
        page.evaluate(
            """() => {
              const text = 'Azi! The pot stays for a replay dealt by Ada. Buying in costs 30.';
              for (const box of ['board', 'decide']) {
                const holder = document.createElement('section');
                holder.className = box;
                holder.style.display = 'block';
                const notice = document.createElement('p');
                notice.className = 'notice';
                notice.textContent = text;
                holder.append(notice);
                document.querySelector('main').append(holder);
              }
            }"""
        )
        assert_accessible(page, "azi-notice")
    finally:
        made.close()


def test_a_move_without_a_connection_says_so_plainly_until_the_table_is_back(
    browser: Browser, site: Site, turns: dict[str, Turn]
) -> None:
    """The server cannot be reached: the move is not sent, and the page says so in plain
    words (no browser error), until the stream is back. The turn is left as it was."""
    made = context(browser, site, DESKTOP, "en", False)
    errors: list[str] = []
    page = collect_errors(made.new_page(), errors)
    try:
        turn = turns["murlan"]
        open_turn(page, turn)
        expect(page.locator("#conn")).to_have_text("live")
        before = site.view(turn.game_id, turn.token)["version"]
        made.set_offline(True)
        page.locator('#actions button[data-action="pass"]').click()
        said = page.locator("#move-error")
        expect(said).to_contain_text("The move was not sent: the server cannot be reached")
        assert "TypeError" not in said.inner_text() and "fetch" not in said.inner_text()
        expect(page.locator("#conn")).not_to_have_text("live")  # it tries the stream again
        made.set_offline(False)
        expect(page.locator("#conn")).to_have_text("live", timeout=20_000)
        expect(said).to_be_empty()
        assert site.view(turn.game_id, turn.token)["version"] == before
    finally:
        made.close()
    # the browser reports the refused requests while offline; nothing else went wrong
    assert not [e for e in errors if "ERR_INTERNET_DISCONNECTED" not in e], errors


GROW_ABOVE = """(px) => {
  const above = document.getElementById('missing');
  above.hidden = false;
  above.style.minHeight = px + 'px';
}"""
HAND_IN_VIEW = """() => {
  const r = document.getElementById('you').getBoundingClientRect();
  return r.top >= 0 && r.bottom <= innerHeight + 1;
}"""


def test_what_is_drawn_above_later_leaves_the_hand_on_the_screen(
    browser: Browser, site: Site, turns: dict[str, Turn]
) -> None:
    """A panel above the hand that opens after the turn was drawn (a hand's summary, the
    seat-link notice) does not push the moves out of sight; once the player scrolls
    away themselves, the page no longer pulls them back. On a screen tall enough for
    the hand to be there without scrolling: the browser's scroll anchoring holds a page
    once it is scrolled, but not one at its top."""
    made = context(browser, site, TALL, "en", False)
    errors: list[str] = []
    page = collect_errors(made.new_page(), errors)
    try:
        open_turn(page, turns["murlan"])
        page.wait_for_function(HAND_IN_VIEW)
        assert page.evaluate("() => window.scrollY") == 0
        page.evaluate(GROW_ABOVE, 600)
        page.wait_for_function(HAND_IN_VIEW)
        assert in_view(page, '#actions button[data-action]:not([data-action="leave"])')
        page.mouse.wheel(0, -2000)  # the player goes up to read the table
        page.wait_for_function("() => !window.scrollY")
        page.evaluate(GROW_ABOVE, 900)
        page.wait_for_function("() => new Promise((done) => requestAnimationFrame(done))")
        assert page.evaluate("() => window.scrollY") == 0
    finally:
        made.close()
    assert not errors, errors
