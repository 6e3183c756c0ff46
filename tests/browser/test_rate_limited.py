"""The web table over a rate budget: it waits out a 429 quietly and keeps updating."""

from __future__ import annotations

import json
import time

import pytest
from playwright.sync_api import Page, Route, expect

from .helpers import Site, create_from_lobby, seat_of

pytestmark = pytest.mark.browser

REFUSED = json.dumps(
    {
        "type": "https://cardroom.dev/problems/rate-limited",
        "title": "Too many requests",
        "status": 429,
        "detail": "too many requests of the 'requests' budget from this address",
        "budget": "requests",
    }
)


def test_the_table_retries_a_429_quietly(page: Page, site: Site) -> None:
    game_id = create_from_lobby(page, "murlan", "Patient")
    assert seat_of(page, game_id)["token"]
    expect(page.locator("#conn")).to_have_text("live")

    refusals: list[float] = []
    passed: list[float] = []

    def refuse_twice(route: Route) -> None:
        if len(refusals) < 2:  # the stream's reconnection and the view: over the budget
            refusals.append(time.monotonic())
            route.fulfill(
                status=429,
                headers={"Retry-After": "1", "Content-Type": "application/problem+json"},
                body=REFUSED,
            )
        else:
            passed.append(time.monotonic())
            route.continue_()

    page.route(f"**/games/{game_id}**", refuse_twice)
    page.reload()
    deadline = time.monotonic() + 20
    while len(refusals) < 2:  # route handlers run while Playwright is waited on
        assert time.monotonic() < deadline, "the page did not ask again"
        page.wait_for_timeout(50)
    # Back after the Retry-After second: the table is drawn and live, with no error shown.
    expect(page.locator("#conn")).to_have_text("live")
    expect(page.locator("#hand button.card")).not_to_have_count(0)
    # Nothing was sent again before the Retry-After second was up.
    assert passed and min(passed) - max(refusals) >= 0.9
    expect(page.locator("#error")).to_be_empty()
    expect(page.locator("#move-error")).to_be_empty()
    expect(page.locator("#seats .seat.me .name")).to_contain_text("Patient")
    site.shot(page, "rate-limited-desktop")
    page.set_viewport_size({"width": 390, "height": 844})
    site.shot(page, "rate-limited-phone")
