"""The lobby: quick play (one tap to a table with bots), and games only bots still play
listed apart, below the ones people are at."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from .helpers import Site, game_id_of, seat_of, wait_for

pytestmark = pytest.mark.browser


def test_quick_play_is_one_tap_to_a_table_with_bots(page: Page, site: Site) -> None:
    page.goto("/")
    panel = page.locator("#quick-play")
    expect(panel).to_contain_text("Quick play")
    site.shot(page, "lobby-quick-play")
    page.set_viewport_size({"width": 390, "height": 844})
    for button in panel.locator("button.quick").all():
        box = button.bounding_box()
        assert box and box["height"] >= 44 and box["y"] + box["height"] <= 844, box
    site.shot(page, "lobby-quick-play-phone")
    # no name typed: the player sits down as "Guest"
    panel.locator('button[data-game="murlan"]').click()
    page.wait_for_url("**/table/**")
    game_id = game_id_of(page)
    held = seat_of(page, game_id)
    assert (held["seat"], held["name"]) == (0, "Guest")
    view = site.view(game_id)
    assert view["status"] == "playing"
    assert [s["bot"] for s in view["seats"]] == [False, True, True, True]
    expect(page.locator("#you #hand .card")).not_to_have_count(0)


def test_quick_play_in_russian_uses_the_typed_name_and_azi_seats_three(
    page: Page, site: Site
) -> None:
    page.goto("/?lang=ru")
    page.fill("#player-name", "Вера")
    panel = page.locator("#quick-play")
    expect(panel).to_contain_text("Быстрая игра")
    expect(panel.locator('button[data-game="azi"]')).to_have_text("Играть в Ази")
    page.set_viewport_size({"width": 390, "height": 844})
    site.shot(page, "lobby-quick-play-ru-phone")
    panel.locator('button[data-game="azi"]').click()
    page.wait_for_url("**/table/**")
    game_id = game_id_of(page)
    assert seat_of(page, game_id)["name"] == "Вера"
    view = site.view(game_id)
    assert view["game"] == "azi" and len(view["seats"]) == 3 and view["status"] == "playing"


def test_games_only_bots_play_are_listed_apart(page: Page, site: Site, bots_think: float) -> None:
    made = site.api("POST", "/games", json={"game": "murlan", "options": {"turn_timeout_s": 3}})
    gone = made["game_id"]
    site.api("POST", f"/games/{gone}/seats", json={"name": "Left"})
    for n in range(3):
        site.api("POST", f"/games/{gone}/seats", json={"name": f"Bot {n}", "bot": True})
    # a quiet game people are still at: older than the other, yet listed above it
    present = site.api("POST", "/games", json={"game": "murlan"})["game_id"]
    site.api("POST", f"/games/{present}/seats", json={"name": "Here"})
    wait_for("the player away", lambda: 0 in site.view(gone)["away"], timeout_s=60)
    page.goto("/")
    row = page.locator(f'#games tr[data-game="{gone}"]')
    tag = row.locator(".tag.status-bots")
    expect(tag).to_have_text("bots finishing")
    expect(tag).to_have_attribute(
        "title",
        "Nobody is at this table any more: bots are playing out the seats of the players who left.",
    )
    assert row.get_attribute("data-group") == "2"
    order = page.locator("#games tbody tr").evaluate_all("rows => rows.map(r => r.dataset.game)")
    assert order.index(present) < order.index(gone), order
    expect(page.locator("#games-h ~ p.hint").nth(1)).to_contain_text("only bots")
    site.shot(page, "lobby-bots-only")
