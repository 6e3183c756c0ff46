"""The pseudo-locale (long, accented messages in ⟦ ⟧) on the table at a phone's 390 px: no
sideways scrolling, and every visible message comes from a catalog (accented), names and card
faces aside."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from .helpers import Site, game_id_of, keep_pace, seat_of
from .table_support import play_murlan_turn

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PHONE = {"width": 390, "height": 844}

# Visible text nodes outside every ⟦…⟧ that hold letters. Card faces (.card), the language
# picker (each language in its own name) and what players typed (names) are left out.
UNACCENTED = r"""(names) => {
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!el || el.closest('.card, .lang-picker, script, style')) continue;
    if (!el.getClientRects().length || getComputedStyle(el).visibility === 'hidden') continue;
    let text = n.textContent;
    for (const name of names) text = text.split(name).join(' ');
    // What a message contributes sits inside ⟦ ⟧ (a text node may hold part of one).
    text = text.replace(/⟦[^⟧]*⟧?/g, ' ').replace(/^[^⟦]*⟧/, ' ');
    if (/\p{L}{2,}/u.test(text)) out.push(text.trim());
  }
  return out;
}"""


@pytest.fixture
def phone(browser: Browser, site: Site) -> Iterator[Page]:
    context = browser.new_context(base_url=site.url, viewport=PHONE)
    context.set_default_timeout(20_000)
    keep_pace(context, lang="pseudo")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    context.close()
    assert not errors, errors


def seat_with_bots(page: Page, game: str, name: str, fill: dict[str, str]) -> str:
    page.goto("/")
    page.fill("#player-name", name)
    page.select_option("#game", game)
    for field, value in fill.items():
        page.fill(f'#create-form fieldset[data-game="{game}"] [name="{field}"]', value)
    page.locator('#create-form button[type="submit"]').click()
    page.wait_for_url("**/table/**")
    return game_id_of(page)


def check(page: Page, site: Site, game_id: str, name: str) -> None:
    names = sorted({s["name"] for s in site.view(game_id)["seats"]}, key=len, reverse=True)
    width = page.evaluate("() => document.documentElement.scrollWidth")
    site.shot(page, f"i18n-{name}-pseudo-phone")
    assert width <= PHONE["width"], f"{name}: the page is {width} px wide at 390 px"
    plain = page.evaluate(UNACCENTED, names)
    assert not plain, f"{name}: text not from a catalog: {plain}"


def test_pseudo_murlan_table_at_your_turn(phone: Page, site: Site) -> None:
    game_id = seat_with_bots(phone, "murlan", "Ana", {})
    token = seat_of(phone, game_id)["token"]
    deadline = time.monotonic() + 60
    # Past the lead of the hand, to a turn of yours with a play on the table to beat.
    while True:
        assert time.monotonic() < deadline, "no turn with a play to beat"
        view = site.view(game_id, token)
        if view["legal_moves"] and view["table"].get("table"):
            break
        if not play_murlan_turn(phone, site, game_id, token):
            time.sleep(0.05)
    expect(phone.locator("#status.mine")).to_be_attached()
    phone.locator("#hand button.card").first.click()
    check(phone, site, game_id, "murlan-turn")


def test_pseudo_azi_table(phone: Page, site: Site) -> None:
    game_id = seat_with_bots(phone, "azi", "Zara", {"seats": "3"})
    token = seat_of(phone, game_id)["token"]
    deadline = time.monotonic() + 60
    while not site.view(game_id, token)["legal_moves"]:
        assert time.monotonic() < deadline, "no turn of Zara's"
        time.sleep(0.05)
    expect(phone.locator("#status.mine")).to_be_attached()
    check(phone, site, game_id, "azi-turn")
