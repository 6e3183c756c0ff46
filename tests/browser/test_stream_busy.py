"""A table refused its live stream for capacity polls its view at the rate the server
asks, shows the other players' moves and the table messages all the same, and goes live
again once a slot is free; the seat's own stream gets in while the spectators' are full."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Browser, Page, Request, expect

from service.api.streamcaps import StreamSlots, TooManyStreams

from .helpers import Site, collect_errors, create_from_lobby, keep_pace, seat_of, wait_for
from .i18n_support import catalog

pytestmark = pytest.mark.browser

WATCHERS = 4
"""Spectators' streams a game may have during these tests (the crowd takes them all)."""


@pytest.fixture
def small_doors(site: Site) -> Iterator[StreamSlots]:
    """The site's stream caps for one test: few spectators a game, and a refused
    stream told to poll every second and to try again after one."""
    slots: StreamSlots = site.streams
    kept = (slots.per_game, slots.poll_after_s, slots.retry_after_s)
    slots.per_game, slots.poll_after_s, slots.retry_after_s = WATCHERS, 1, 1
    try:
        yield slots
    finally:
        slots.per_game, slots.poll_after_s, slots.retry_after_s = kept


def newest_logged(page: Page) -> int:
    first = page.locator("#log li .ver").first
    return int(first.inner_text()) if first.count() else 0


def shown_after(page: Page, version: int) -> None:
    """Until the page's log shows a step after ``version``."""
    wait_for("the move on the watcher's log", lambda: newest_logged(page) > version)


@pytest.mark.parametrize("lang", ["en", "hu"])
def test_a_crowded_table_is_watched_by_polling(
    page: Page, browser: Browser, site: Site, small_doors: StreamSlots, lang: str
) -> None:
    keep_pace(page)
    game_id = create_from_lobby(page, "murlan", "Ada")
    token = seat_of(page, game_id)["token"]
    expect(page.locator("#conn")).to_have_text("live")
    # A crowd, each from an address of its own, takes every spectator's slot of the game.
    crowd = [f"198.51.100.{i}" for i in range(WATCHERS)]
    for address in crowd:
        small_doors.acquire(address, game_id)
    with pytest.raises(TooManyStreams):
        small_doors.acquire("198.51.100.200", game_id)
    watcher = browser.new_context(base_url=site.url, viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    try:
        keep_pace(watcher, lang=lang)
        watching = collect_errors(watcher.new_page(), errors)
        streams: list[str] = []
        views: list[str] = []

        def note(request: Request) -> None:
            if request.url.endswith(f"/games/{game_id}"):
                views.append(request.url)
            elif "x-ndjson" in (request.headers.get("accept") or ""):
                streams.append(request.url)

        watching.on("request", note)
        watching.goto(f"/table/{game_id}")
        # The discreet note, in the page's language, and the view drawn from polling.
        busy = catalog(lang)["table.conn.polling"].replace("{seconds}", "1")
        conn = watching.locator("#conn")
        expect(conn).to_have_text(busy)
        expect(conn).to_have_class(re.compile(r"\bpoll\b"))
        expect(watching.locator("#seats .seat")).to_have_count(4)
        # Ada moves (and the bots after her): the watcher sees it all without a stream.
        for _ in range(2):
            view = wait_for(
                "Ada's turn",
                lambda: v if (v := site.view(game_id, token))["legal_moves"] else None,
                timeout_s=60,  # the bots' moves before hers, by a worker on a busy machine
            )
            site.api(
                "POST", f"/games/{game_id}/moves", token, json={"move": view["legal_moves"][0]}
            )
            shown_after(watching, view["version"])
        expect(watching.locator("#log")).to_contain_text("Ada")
        expect(conn).to_have_text(busy)
        # the seat's own stream was never in question
        expect(page.locator("#conn")).to_have_text("live")
        # polled, not hammering the stream: it was asked for again only now and then
        assert len(views) >= 3 and len(streams) < len(views), (streams, views)
        site.shot(watching, f"stream-busy-{lang}-desktop")
        watching.set_viewport_size({"width": 390, "height": 844})
        site.shot(watching, f"stream-busy-{lang}-phone")
        # The crowd leaves: at its next try the table has its stream again.
        for address in crowd:
            small_doors.release(address, game_id)
        crowd = []
        expect(conn).to_have_class(re.compile(r"\blive\b"), timeout=40_000)
    finally:
        for address in crowd:
            small_doors.release(address, game_id)
        watcher.close()
    assert not errors, errors


def test_a_seat_whose_slots_are_full_plays_on_by_polling(
    page: Page, site: Site, small_doors: StreamSlots
) -> None:
    keep_pace(page)
    game_id = create_from_lobby(page, "murlan", "Bea")
    held = seat_of(page, game_id)
    token, seat = held["token"], held["seat"]
    expect(page.locator("#conn")).to_have_text("live")
    # This seat's other two slots are taken (two more devices), so a third tab is refused.
    others = ["203.0.113.7", "203.0.113.8"]
    for address in others[: small_doors.per_seat - 1]:
        small_doors.acquire(address, game_id, seat)
    errors: list[str] = []
    try:
        third = collect_errors(page.context.new_page(), errors)
        third.goto(f"/table/{game_id}")
        conn = third.locator("#conn")
        expect(conn).to_have_class(re.compile(r"\bpoll\b"))
        # the polled view is the seat's: its hand, and its turn when it comes
        expect(third.locator("#hand button.card")).not_to_have_count(0)
        view = wait_for(
            "Bea's turn",
            lambda: v if (v := site.view(game_id, token))["legal_moves"] else None,
            timeout_s=30,
        )
        expect(third.locator("#status")).to_have_class(re.compile(r"\bmine\b"))
        site.api("POST", f"/games/{game_id}/moves", token, json={"move": view["legal_moves"][0]})
        shown_after(third, view["version"])
        expect(conn).to_have_class(re.compile(r"\bpoll\b"))
        site.shot(third, "stream-busy-seat-desktop")
    finally:
        for address in others[: small_doors.per_seat - 1]:
            small_doors.release(address, game_id, seat)
    assert not errors, errors


# Kept by the page: for each seat, the run of message ids its bubble showed (None: none), a
# new entry only when that changes (a seat box redrawn with its bubble is the same showing).
BUBBLES = r"""
(() => {
  window.__bubbles = {};
  const look = () => {
    for (const box of document.querySelectorAll('#seats .seat[data-seat]')) {
      const said = box.querySelector('.said');
      const id = said ? said.dataset.id : null;
      const runs = (window.__bubbles[box.dataset.seat] ||= []);
      if (runs[runs.length - 1] !== id) runs.push(id);
    }
  };
  const all = { subtree: true, childList: true, attributes: true, characterData: true };
  new MutationObserver(look).observe(document, all);
})();
"""


def test_a_polling_table_shows_what_a_seat_says_once(
    browser: Browser, site: Site, small_doors: StreamSlots
) -> None:
    """A watcher refused its stream reads the table messages at each look: Bea's appears
    beside her seat; once the stream is back, her next one comes on it, and neither is
    shown twice."""
    body = {"game": "murlan", "options": {"turn_timeout_s": "none"}}
    game_id = site.api("POST", "/games", json=body)["game_id"]
    tokens = [
        site.api("POST", f"/games/{game_id}/seats", json={"name": name})["token"]
        for name in ("Ada", "Bea")
    ]
    for n in (1, 2):
        site.api("POST", f"/games/{game_id}/seats", json={"name": f"Robo {n}", "bot": True})
    crowd = [f"198.51.100.{i}" for i in range(WATCHERS)]
    for address in crowd:
        small_doors.acquire(address, game_id)
    watcher = browser.new_context(base_url=site.url, viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    said = f"/games/{game_id}/messages"
    try:
        keep_pace(watcher)
        watcher.add_init_script(BUBBLES)
        watching = collect_errors(watcher.new_page(), errors)
        # the first look at the messages finds where they stand; what is said after it shows
        with watching.expect_response(lambda r: r.url.endswith(said)):
            watching.goto(f"/table/{game_id}")
        conn = watching.locator("#conn")
        expect(conn).to_have_class(re.compile(r"\bpoll\b"))
        first = site.api("POST", said, tokens[1], json={"code": "good_luck"})
        bea = watching.locator('#seats .seat[data-seat="1"] .said')
        expect(bea).to_have_text("Good luck!")
        expect(bea).to_have_attribute("data-id", first["id"])
        expect(watching.locator("#seats .said")).to_have_count(1)  # beside Bea's seat only
        expect(conn).to_have_class(re.compile(r"\bpoll\b"))  # still without its stream
        site.shot(watching, "table-message-polling-desktop")
        # the crowd leaves: the stream is back, and Bea's next message comes on it
        for address in crowd:
            small_doors.release(address, game_id)
        crowd = []
        expect(conn).to_have_class(re.compile(r"\blive\b"), timeout=40_000)
        wait_for("Bea's next message allowed", lambda: _say_again(site, said, tokens[1]))
        expect(bea).to_have_text("Thanks!")
        runs = [i for i in watching.evaluate("window.__bubbles")["1"] if i is not None]
        assert len(runs) == len(set(runs)) == 2 and runs[0] == first["id"], runs
    finally:
        for address in crowd:
            small_doors.release(address, game_id)
        watcher.close()
        site.end_games({game_id})
    assert not errors, errors


def _say_again(site: Site, path: str, token: str) -> bool:
    """Bea says "thanks" (False while her last message's gap is not over)."""
    try:
        site.api("POST", path, token, json={"code": "thanks"})
    except httpx.HTTPStatusError as exc:
        if exc.response.status_code == 429:
            return False
        raise
    return True
