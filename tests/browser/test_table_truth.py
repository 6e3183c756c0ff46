"""The view is the truth: while the page plays the stream out at its pace, no move control is
live for a turn that has passed. A Murlan hand played to its end by clicking (the seat going
out, the hand ending while the bots' last plays are still being shown), a Hazari deal where
the seat is the last to say up, and an Azi hand until its pot is paid: the page records, at
every change of the screen, the latest step it shows whenever a move button is enabled, and
the game's own events then say whether the seat really was to act there."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from .helpers import Site, collect_errors, keep_pace, seat_of
from .table_support import LIVE_CONTROLS, EventLog, acts, events_of, stale

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def stale_tags(tagged: list[list[int]], events: list[dict[str, Any]]) -> list[str]:
    """Seats marked "to act" at a step after which their own move was already shown."""
    out = []
    for seat, step in tagged:
        moved = [e for e in events if acts(e, seat) and e["version"] == step]
        if moved and moved[0]["type"] in ("Arranged", "CardsPlayed", "Passed", "BetPlaced"):
            out.append(f"seat {seat} to act at step {step}, its {moved[0]['type']} shown")
    return out


@pytest.fixture
def paced(browser: Browser, site: Site) -> Iterator[Page]:
    """A player's page at the fast pace (each bot play held a quarter of a second)."""
    context = browser.new_context(base_url=site.url, viewport={"width": 1280, "height": 800})
    context.set_default_timeout(20_000)
    context.add_init_script(LIVE_CONTROLS)
    keep_pace(context, "fast")
    errors: list[str] = []
    page = collect_errors(context.new_page(), errors)
    yield page
    context.close()
    assert not errors, errors


def new_table(
    page: Page, site: Site, game: str, options: dict[str, Any], seats: int | None
) -> tuple[str, str]:
    """A game with Ada at seat 1 (her browser keeps the seat) and bots in the others."""
    body: dict[str, Any] = {"game": game, "options": {"turn_timeout_s": "none", **options}}
    if seats:
        body["seats"] = seats
    game_id = site.api("POST", "/games", json=body)["game_id"]
    granted = site.api("POST", f"/games/{game_id}/seats", json={"name": "Ada"})
    page.goto("/")
    page.evaluate(
        """([id, token]) => localStorage.setItem('cardroom.seat.' + id,
             JSON.stringify({ token, seat: 0, name: 'Ada' }))""",
        [game_id, granted["token"]],
    )
    page.goto(f"/table/{game_id}")
    for n in range(1, len(site.view(game_id)["seats"])):
        site.api("POST", f"/games/{game_id}/seats", json={"name": f"Robo {n}", "bot": True})
    assert seat_of(page, game_id)["seat"] == 0
    return game_id, granted["token"]


def press(page: Page, move: dict[str, Any]) -> None:
    """Make ``move`` by pressing the page's cards and buttons, once the page shows the turn."""
    expect(page.locator("#status.mine")).to_be_visible(timeout=30_000)
    cards = move.get("cards") or ([move["card"]] if "card" in move else [])
    for card in cards:
        page.locator(f'#hand button.card[data-card="{card}"]').click()
    page.locator(f'#actions button[data-action="{move["action"]}"]').click()


def play_until(page: Page, site: Site, game_id: str, token: str, done: str, choose: Any) -> None:
    """Play Ada's turns on the page (``choose(legal moves)``) until an event ``done`` after
    her first move (a hand the bots end before she acts does not count)."""
    log = EventLog(site, game_id, token)
    deadline = time.monotonic() + 90
    moved_at: int | None = None  # the game's version after Ada's first move

    def finished() -> bool:
        after = moved_at if moved_at is not None else 10**9
        return any(e["type"] == done and e["version"] > after for e in log.read())

    while not finished():
        assert time.monotonic() < deadline, f"no {done} in time"
        view = site.view(game_id, token)
        moves = [m for m in view["legal_moves"] if m["action"] != "leave"]
        if not moves or view["status"] != "playing":
            time.sleep(0.05)
            continue
        press(page, choose(moves))
        while site.view(game_id, token)["version"] <= view["version"]:
            refused = page.locator("#move-error").inner_text()
            assert not refused, f"the move was refused: {refused}"
            assert time.monotonic() < deadline, "the move did not land"
            time.sleep(0.05)
        if moved_at is None:
            moved_at = view["version"]


def no_stale_controls(page: Page, site: Site, game_id: str, token: str, panel: str) -> None:
    # the page has played the stream out to the moment's panel
    expect(page.locator(f'#summary[data-kind="{panel}"]')).to_be_attached(timeout=30_000)
    events = events_of(site, game_id, token)
    steps = page.evaluate("window.__live")
    assert steps, "the page never offered a move"
    assert not stale(steps, events, 0), stale(steps, events, 0)
    tags = stale_tags(page.evaluate("window.__tagged"), events)
    assert not tags, tags


def test_murlan_no_move_is_offered_after_the_turn_passed(paced: Page, site: Site) -> None:
    game_id, token = new_table(paced, site, "murlan", {}, None)

    def lowest(moves: list[dict[str, Any]]) -> dict[str, Any]:
        return next((m for m in moves if m["action"] in ("play", "give_back")), moves[0])

    play_until(paced, site, game_id, token, "HandEnded", lowest)
    no_stale_controls(paced, site, game_id, token, "HandEnded")


def test_hazari_saying_up_last_ends_the_turn_at_once(paced: Page, site: Site) -> None:
    game_id, token = new_table(paced, site, "hazari", {"target": 10_000}, None)
    play_until(paced, site, game_id, token, "DealScored", lambda moves: moves[0])
    no_stale_controls(paced, site, game_id, token, "DealScored")
    events = events_of(site, game_id, token)
    said = [e for e in events if e["type"] == "Arranged"]
    assert said[3]["seat"] == 0, "Ada was not the last to say up"  # the bots say up at once


def test_azi_no_move_is_offered_while_a_pot_is_paid(paced: Page, site: Site) -> None:
    game_id, token = new_table(paced, site, "azi", {"buy_in": 5000}, 3)

    def through(moves: list[dict[str, Any]]) -> dict[str, Any]:
        by = {m["action"]: m for m in moves}
        wanted = ("call", "play", "discard", "decline")
        return next((by[a] for a in wanted if a in by), moves[0])

    play_until(paced, site, game_id, token, "PotSettled", through)
    no_stale_controls(paced, site, game_id, token, "PotSettled")
