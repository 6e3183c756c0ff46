"""The table that calls you: the turn clock, a waiting table's bot and invite controls,
and the tab's title (and an opted-in notification) at your turn."""

from __future__ import annotations

import math
import time
from datetime import UTC, datetime
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from .helpers import Site, seat_of, wait_for
from .test_seats_link import add_bots, new_table

pytestmark = pytest.mark.browser


def sit(page: Page, site: Site, game_id: str, name: str) -> dict[str, Any]:
    """Take the next seat from the table page's form; the seat kept in the browser."""
    page.goto(f"/table/{game_id}")
    page.fill("#join-form [name=name]", name)
    page.click("#join-form button[type=submit]")
    wait_for(
        "the seat",
        lambda: page.evaluate("id => localStorage.getItem('cardroom.seat.' + id)", game_id),
    )
    return seat_of(page, game_id)


def our_turn(site: Site, game_id: str, token: str) -> Any:
    return wait_for(
        "our turn",
        lambda: v if (v := site.view(game_id, token))["legal_moves"] else None,
        timeout_s=30,
    )


def test_the_countdown_shows_the_deadline_and_runs_down(page: Page, site: Site) -> None:
    game_id = new_table(site)
    seat = sit(page, site, game_id, "Tomas")
    add_bots(site, game_id, 3)
    view = our_turn(site, game_id, seat["token"])
    deadline = view["turn_deadlines_ms"][seat["seat"]]
    assert view["turn_limit_s"] == 600 and isinstance(deadline, int)
    clock = page.locator("#turn-clock")
    expect(clock).to_be_visible()
    expect(clock).to_have_attribute("data-deadline", str(deadline))
    expect(clock).to_have_class("turn-clock mine")
    # what the page shows agrees with the API's deadline at the moment it was read
    before = time.time() * 1000
    shown, text = page.evaluate(
        "() => { const c = document.querySelector('#turn-clock');"
        " return [Number(c.dataset.left), c.textContent]; }"
    )
    after = time.time() * 1000
    left = int(shown)
    # (the clock is redrawn once a second: what it shows may be one tick old)
    latest, earliest = math.ceil((deadline - before) / 1000), math.floor((deadline - after) / 1000)
    assert earliest <= left <= latest + 1
    assert f"{left // 60}:{left % 60:02d} left for your move" in text
    site.shot(page, "seats-clock-mine")
    # and it runs down (waiting for the page to change, not for a time)
    page.wait_for_function(
        "was => Number(document.querySelector('#turn-clock').dataset.left) < was", arg=left
    )
    page.set_viewport_size({"width": 390, "height": 844})
    site.shot(page, "seats-clock-mine-phone")


def test_the_clock_of_another_player(page: Page, site: Site) -> None:
    """Hazari's seats arrange together: once we have, the other person's clock is shown."""
    game_id = new_table(site, "hazari")
    mine = sit(page, site, game_id, "Ilir")
    other = site.api("POST", f"/games/{game_id}/seats", json={"name": "Besa"})
    add_bots(site, game_id, 2)
    view = our_turn(site, game_id, mine["token"])
    clock = page.locator("#turn-clock")
    expect(clock).to_have_attribute("data-deadline", str(view["turn_deadlines_ms"][0]))
    site.api(
        "POST", f"/games/{game_id}/moves", mine["token"], json={"move": view["legal_moves"][0]}
    )
    expect(clock).to_contain_text("Besa has")
    expect(clock).not_to_have_class("turn-clock mine")
    public = site.view(game_id)
    expect(clock).to_have_attribute(
        "data-deadline", str(public["turn_deadlines_ms"][other["seat"]])
    )
    site.shot(page, "seats-clock-other")


def test_a_waiting_table_adds_bots_and_copies_its_invitation(page: Page, site: Site) -> None:
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    game_id = new_table(site)
    page.goto(f"/table/{game_id}")
    panel = page.locator("#waiting")
    # a visitor without a seat has the controls too
    expect(panel).to_be_visible()
    expect(panel).to_contain_text("4 seats are still free.")
    sit(page, site, game_id, "Arta")
    expect(panel).to_contain_text("3 seats are still free.")
    page.click("#copy-invite")
    expect(page.locator("#waiting-msg")).to_have_text("Invite link copied.")
    assert page.evaluate("navigator.clipboard.readText()") == f"{site.url}/table/{game_id}"
    site.shot(page, "seats-waiting")
    page.set_viewport_size({"width": 390, "height": 844})
    site.shot(page, "seats-waiting-phone")
    page.set_viewport_size({"width": 360, "height": 780})
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    page.set_viewport_size({"width": 1280, "height": 900})
    page.click("#add-bot")
    expect(panel).to_contain_text("2 seats are still free.")
    page.click("#add-bot")
    expect(panel).to_contain_text("One seat is still free.")
    page.click("#add-bot")
    expect(panel).to_be_hidden()
    seats = site.view(game_id)["seats"]
    assert [(s["name"], s["bot"]) for s in seats] == [
        ("Arta", False),
        ("Bot 1", True),
        ("Bot 2", True),
        ("Bot 3", True),
    ]
    expect(page.locator("#seats .seat .tag.bot")).to_have_count(3)


def test_the_title_and_a_notification_say_it_is_your_turn(page: Page, site: Site) -> None:
    # The tab is made to look hidden and notifications are recorded, not shown.
    page.add_init_script(
        """
        Object.defineProperty(document, 'hidden', { get: () => window.__hidden === true });
        window.__shown = [];
        class Recorded {
          static permission = 'default';
          static async requestPermission() { Recorded.permission = 'granted'; return 'granted'; }
          constructor(title, options) { window.__shown.push({ title, body: options.body }); }
          close() {}
        }
        window.Notification = Recorded;
        """
    )
    game_id = new_table(site)
    seat = sit(page, site, game_id, "Dora")
    expect(page).not_to_have_title("● Your turn — Murlan · cardroom")
    toggle = page.locator("#notify-toggle")
    expect(toggle).to_have_text("Tell me when it is my turn")
    toggle.click()
    expect(toggle).to_have_text("Stop telling me when it is my turn")
    page.evaluate("window.__hidden = true")
    add_bots(site, game_id, 3)
    our_turn(site, game_id, seat["token"])
    expect(page).to_have_title("● Your turn — Murlan · cardroom")
    shown = page.evaluate("window.__shown")
    assert shown == [{"title": "Your turn — Murlan", "body": "It is your turn at the table."}]


@pytest.mark.parametrize("shift_s", [3600, -3600], ids=["ahead-1h", "behind-1h"])
def test_the_countdown_is_right_on_a_device_whose_clock_is_an_hour_off(
    page: Page, site: Site, shift_s: int
) -> None:
    """The page measures this device's clock against Redis's (the table page's
    ``X-Cardroom-Clock-Ms``): what it shows left is the turn's real time left."""
    page.clock.install(time=datetime.fromtimestamp(time.time() + shift_s, UTC))
    game_id = new_table(site)
    seat = sit(page, site, game_id, "Oskar")
    device_off_s = page.evaluate("() => Date.now()") / 1000 - time.time()
    assert abs(device_off_s - shift_s) < 60  # the page's clock is the device's, an hour off
    add_bots(site, game_id, 3)
    view = our_turn(site, game_id, seat["token"])
    deadline = view["turn_deadlines_ms"][seat["seat"]]
    clock = page.locator("#turn-clock")
    expect(clock).to_have_attribute("data-deadline", str(deadline))
    before = time.time() * 1000
    left = int(page.evaluate("() => document.querySelector('#turn-clock').dataset.left"))
    after = time.time() * 1000
    # to within the measurement (half a round trip, a 0.5 s dead band) and a tick
    latest, earliest = math.ceil((deadline - before) / 1000), math.floor((deadline - after) / 1000)
    assert earliest - 1 <= left <= latest + 2, (left, earliest, latest)
