"""Hazari Lite in the browser: arrange the four groups from the suggestion, see
the order rule explained when it is broken, say up and watch the deal played."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from service.engines.hazari.combos import key

from .helpers import Site, create_from_lobby, keep_pace, seat_of, wait_for

pytestmark = pytest.mark.browser


def groups_on_page(page: Page) -> list[list[str]]:
    groups = page.locator("#groups .group")
    return [
        groups.nth(g).locator("button.card").evaluate_all("bs => bs.map(b => b.dataset.card)")
        for g in range(groups.count())
    ]


def test_hazari_arrange_and_play_a_deal(page: Page, site: Site) -> None:
    keep_pace(page)  # about arranging, not the pace: the rounds show as soon as played
    game_id = create_from_lobby(page, "hazari", "Hana", {"target": "360"})
    token = seat_of(page, game_id)["token"]
    expect(page.locator("#groups .group")).to_have_count(4)
    view = site.view(game_id, token)
    assert view["legal_moves_complete"] is False
    suggestion = view["legal_moves"][0]["groups"]
    assert groups_on_page(page) == suggestion

    # Break the order: lift a weaker three-card group above a stronger one.
    weaker = next(i for i in (1, 2) if key(suggestion[i]) < key(suggestion[i - 1]))
    page.get_by_role("button", name=f"Move group {weaker + 1} up").click()
    expect(page.locator("#groups .group.bad")).to_have_count(1)
    page.locator('#actions button[data-action="arrange"]').click()
    error = page.locator("#move-error")
    expect(error).to_contain_text("strongest first")
    expect(error).to_contain_text("group 1 ≥ group 2 ≥ group 3 ≥ group 4")
    site.shot(page, "hazari-refused")
    assert site.view(game_id, token)["table"]["arrangement"] is None  # nothing changed

    # Back to the suggestion, swap two cards inside the four-card group, say up.
    page.locator('#actions button[data-action="reset"]').click()
    assert groups_on_page(page) == suggestion
    four = page.locator("#groups .group").nth(3).locator("button.card")
    four.nth(0).click()
    expect(four.nth(0)).to_have_attribute("aria-pressed", "true")
    four.nth(3).press("Enter")  # the keyboard works as well as the mouse
    swapped = [suggestion[3][3], *suggestion[3][1:3], suggestion[3][0]]
    assert groups_on_page(page)[3] == swapped
    page.locator('#actions button[data-action="arrange"]').click()

    played = wait_for(
        "the deal to be played",
        lambda: site.view(game_id, token)["table"]["last_deal"],
    )
    assert played["rounds"][3]["laid"][view["seat"]] == swapped
    assert sum(played["points"]) == 360
    expect(page.locator("#rounds .round")).to_have_count(4)
    expect(page.locator("#move-error")).to_be_empty()
    expect(page.locator("#log")).to_contain_text("Hana says up")
    site.shot(page, "hazari-table")
