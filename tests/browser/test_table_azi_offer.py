"""A real Azi buy-in offer in the browser. The table's deal is chosen (Ada's client seed,
found in memory from the table's server seed: see ``azi_offer``) so that three bots take
a trick each and the pot stays: Ada, who folded, is asked to buy into the replay. Her page
is played there by clicking; then, at that moment, on a desktop (1280x800) and on phones
(390x844, 360x740), in English and in Russian: what the offer costs and why, the pot, the
trump, the buttons and what they do are on the screen together with her hand, no two
targets overlap, each is at least 44x44 px on a phone, and axe-core finds no WCAG 2 AA
violation. Her page never offers a move while another seat is to act, before the offer or
after her answer."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from playwright.sync_api import Browser, Page, ViewportSize, expect

from .azi_offer import Offer, seat_the_bots, table_with_an_offer
from .helpers import Site, collect_errors, keep_pace
from .screen_checks import assert_accessible, in_view, targets
from .table_support import (
    LIVE_CONTROLS,
    context,
    events_of,
    horizontal_overflow,
    shot_screen,
    stale,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

DESKTOP: ViewportSize = {"width": 1280, "height": 800}
PHONE: ViewportSize = {"width": 390, "height": 844}
NARROW: ViewportSize = {"width": 360, "height": 740}
ANSWERS = '#actions button[data-action="buy_in"], #actions button[data-action="decline"]'
# What Ada must see to decide: on the board on a desktop, beside her hand on a phone.
FACTS = {
    False: ("#board .notice", "#board #pot", "#board #trump"),
    True: ("#decide .notice", "#decide .pot", "#decide .facts"),
}


@dataclass
class Held:
    offer: Offer
    page: Page
    version: int
    errors: list[str]


def open_seat(page: Page, offer: Offer) -> None:
    """Ada's seat, as her browser keeps it, on her table's page."""
    page.goto("/")
    page.evaluate(
        """([id, token]) => localStorage.setItem('cardroom.seat.' + id,
             JSON.stringify({ token, seat: 0, name: 'Ada' }))""",
        [offer.game_id, offer.token],
    )
    page.goto(f"/table/{offer.game_id}")


def fold_to_the_offer(page: Page, site: Site, offer: Offer) -> int:
    """Fold on the page at each of Ada's turns until she is offered the buy-in; its version."""
    deadline = time.monotonic() + 60
    folds = 0
    while True:
        assert time.monotonic() < deadline, "no buy-in offer in time"
        view = site.view(offer.game_id, offer.token)
        actions = {m["action"] for m in view["legal_moves"]}
        if "buy_in" in actions:
            assert folds == offer.folds, f"{folds} folds on the page, {offer.folds} in memory"
            return int(view["version"])
        assert view["table"]["hand_no"] == 1, "the first hand ended without an offer"
        if "fold" not in actions:
            time.sleep(0.05)
            continue
        expect(page.locator("#status.mine")).to_be_visible()
        page.locator('#actions button[data-action="fold"]').click()
        folds += 1
        while site.view(offer.game_id, offer.token)["version"] <= view["version"]:
            refused = page.locator("#move-error").inner_text()
            assert not refused, f"the fold was refused: {refused}"
            assert time.monotonic() < deadline, "the fold did not land"
            time.sleep(0.05)


@pytest.fixture(scope="module")
def held(browser: Browser, site: Site) -> Iterator[Held]:
    """Ada's desktop page (in English, every step shown at once) at her buy-in offer,
    reached by folding on the page; the page records when a move control is live."""
    offer = table_with_an_offer(site)
    made = browser.new_context(base_url=site.url, viewport=DESKTOP)
    made.set_default_timeout(20_000)
    made.add_init_script(LIVE_CONTROLS)
    keep_pace(made, "instant", "en")
    errors: list[str] = []
    page = collect_errors(made.new_page(), errors)
    try:
        open_seat(page, offer)
        seat_the_bots(site, offer)
        version = fold_to_the_offer(page, site, offer)
        expect(page.locator("#meta")).to_have_attribute("data-version", str(version))
        yield Held(offer, page, version, errors)
    finally:
        made.close()
        site.end_games({offer.game_id})


def test_the_offer_says_what_buying_in_costs_and_why(held: Held, site: Site) -> None:
    page, offer = held.page, held.offer
    view = site.view(offer.game_id, offer.token)
    azi = view["table"]["azi"]
    assert view["table"]["phase"] == "azi_buy_in" and 0 in azi["to_decide"]
    expect(page.locator("#status.mine")).to_be_visible()
    notice = page.locator("#board .notice")
    expect(notice).to_contain_text("Azi! Three players took a trick each, so nobody wins")
    expect(notice).to_contain_text(f"Buying in costs {azi['price']}")
    expect(page.locator("#board #pot")).to_contain_text(str(view["table"]["pot"]))
    # the finished bidding's highest bid is not a price to match, and the cards held are out
    expect(page.locator("#board #trump")).not_to_contain_text("Highest bid")
    expect(page.locator("#actions .hint")).to_have_text(
        "Your cards of this deal are out. Buy in to be dealt new cards in the replay,"
        " or decline to keep your chips and sit it out."
    )
    buy = page.locator('#actions button[data-action="buy_in"]')
    expect(buy).to_have_text(f"Buy in ({azi['price']})")
    expect(buy).to_be_enabled()
    expect(page.locator('#actions button[data-action="decline"]')).to_be_enabled()
    # until the offer, a move was offered only at Ada's own turns
    steps = page.evaluate("window.__live")
    found = stale(steps, events_of(site, offer.game_id, offer.token), 0)
    assert not found, found
    assert not held.errors, held.errors


@pytest.mark.parametrize(
    ("size", "lang", "phone"),
    [
        pytest.param(DESKTOP, "en", False, id="desktop-en"),
        pytest.param(PHONE, "en", True, id="phone-en"),
        pytest.param(NARROW, "en", True, id="narrow-en"),
        pytest.param(DESKTOP, "ru", False, id="desktop-ru"),
        pytest.param(PHONE, "ru", True, id="phone-ru"),
        pytest.param(NARROW, "ru", True, id="narrow-ru"),
    ],
)
def test_the_offer_is_on_one_screen(
    browser: Browser, site: Site, held: Held, size: ViewportSize, lang: str, phone: bool
) -> None:
    made = context(browser, site, size, lang, phone)
    errors: list[str] = []
    page = collect_errors(made.new_page(), errors)
    name = f"table-azi-offer-{'phone' if phone else 'desktop'}-{size['width']}-{lang}"
    try:
        open_seat(page, held.offer)
        expect(page.locator("#meta")).to_have_attribute("data-version", str(held.version))
        expect(page.locator("#you.mine")).to_be_visible()
        assert in_view(page, "#hand button.card"), f"{name}: the hand is off the screen"
        assert in_view(page, ANSWERS), f"{name}: buy in and decline are off the screen"
        assert in_view(page, "#actions .hint"), f"{name}: what the answers do is off the screen"
        for fact in FACTS[phone]:
            assert in_view(page, fact), f"{name}: {fact} is off the screen"
        found = targets(page)
        assert not found["overlaps"], f"{name}: targets overlap: {found['overlaps'][:5]}"
        if phone:
            assert not found["small"], f"{name}: targets under 44x44 px: {found['small'][:8]}"
            assert horizontal_overflow(page) == 0
        assert_accessible(page, name)
        shot_screen(page, site, name)
    finally:
        made.close()
    assert not errors, errors


def test_declining_on_the_page_leaves_no_move_to_make(held: Held, site: Site) -> None:
    page, offer = held.page, held.offer
    page.locator('#actions button[data-action="decline"]').click()
    expect(page.locator('#actions button[data-action="decline"]')).to_have_count(0)
    events = events_of(site, offer.game_id, offer.token)
    assert any(e["type"] == "Declined" and e["seat"] == 0 for e in events), "no decline"
    site.shot(page, "table-azi-declined-desktop-en")
    steps = page.evaluate("window.__live")
    found = stale(steps, events_of(site, offer.game_id, offer.token), 0)
    assert not found, found
    assert not held.errors, held.errors
