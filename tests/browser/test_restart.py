"""A table open in the browser shows its game again after ``cardroom serve`` is
restarted on its embedded default (a real ``redis-server`` child keeping the
games in a temporary data directory)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from service.devstack import Serve, tools_missing

from .conftest import SCREENSHOTS
from .helpers import Site, create_from_lobby, seat_of, wait_for

MISSING = tools_missing()
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(MISSING is not None, reason=MISSING or ""),
]


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Serve]:
    made = Serve(tmp_path / "data", tmp_path / "serve.log").start()
    yield made
    made.proc.kill()


def hand_of(page: object) -> list[str]:
    cards = page.locator("#hand button.card").evaluate_all(  # type: ignore[attr-defined]
        "buttons => buttons.map(b => b.dataset.card)"
    )
    return sorted(cards)


def test_a_table_shows_its_game_again_after_a_restart(browser: Browser, serve: Serve) -> None:
    site = Site(serve.url, SCREENSHOTS)
    context = browser.new_context(base_url=serve.url, viewport={"width": 1280, "height": 900})
    context.set_default_timeout(15_000)
    page = context.new_page()
    try:
        game_id = create_from_lobby(page, "murlan", "Ana")
        token = seat_of(page, game_id)["token"]
        # Three bots (no thinking delay here) play until it is Ana's turn.
        wait_for("Ana's turn", lambda: site.view(game_id, token)["legal_moves"])
        before = site.view(game_id, token)
        expect(page.locator("#status")).to_have_class("status mine")
        expect(page.locator("#hand button.card")).to_have_count(len(before["hand"]))
        cards = hand_of(page)
        site.shot(page, "restart-1-before")

        assert serve.stop() == 0
        serve.start()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.reload()

        expect(page.locator("#conn")).to_have_text("live")
        expect(page.locator("#seats .seat")).to_have_count(4)
        expect(page.locator("#seats .seat.me .name")).to_contain_text("Ana")
        expect(page.locator("#status")).to_have_class("status mine")
        expect(page.locator("#hand button.card")).to_have_count(len(cards))
        assert hand_of(page) == cards
        assert seat_of(page, game_id)["token"] == token  # the seat was not forgotten
        after = site.view(game_id, token)
        assert after["version"] == before["version"] and after["hand"] == before["hand"]
        site.shot(page, "restart-2-after")

        # And the game goes on: Ana's move lands and the bots answer it.
        move = {"move": after["legal_moves"][0], "expected_version": after["version"]}
        site.api("POST", f"/games/{game_id}/moves", token, json=move)
        wait_for("the bots' answer", lambda: site.view(game_id)["version"] > after["version"] + 1)
        site.shot(page, "restart-3-played-on")
        assert errors == []
    finally:
        context.close()
