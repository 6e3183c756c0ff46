"""The lobby, the replay, the rules pages and the fairness page in Chromium, at a
desktop's size and a phone's: the rules rendered and linked, nothing wider than a
360 px screen, the lobby's ages and order, the replay's step controls that stay put.

These tests run their own server (fresh data, and the game service at hand to
abandon a game without waiting an hour)."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect
from werkzeug.serving import make_server

from service.games import GameService
from service.web import rules as rules_module

from .conftest import SCREENSHOTS, SITE_DATABASES, build_app
from .helpers import Site, collect_errors, wait_for
from .screen_checks import assert_accessible

# One worker runs the whole module, so its own site and tables are made once, not once a worker.
pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("pages-layout")]

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
NARROW = {"width": 360, "height": 740}
GAMES = {"hazari": "Hazari Lite", "azi": "Azi", "murlan": "Murlan"}


@dataclass
class Own:
    site: Site
    service: GameService


@pytest.fixture(scope="module")
def own() -> Iterator[Own]:
    app, worker = build_app(SITE_DATABASES["pages-layout"])
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="pages-test-server", daemon=True)
    thread.start()
    try:
        yield Own(
            Site(f"http://127.0.0.1:{server.server_port}", SCREENSHOTS), app.extensions["cardroom"]
        )
    finally:
        server.shutdown()
        thread.join(5)
        worker.stop()


@dataclass
class Tables:
    open: str
    playing: str
    finished: str
    abandoned: str


@pytest.fixture(scope="module")
def tables(own: Own) -> Tables:
    """One game of each kind, created oldest to newest: open, playing, finished, abandoned
    (so the index lists them in the opposite order)."""
    site = own.site

    def create(game: str, **options: Any) -> str:
        return str(site.api("POST", "/games", json={"game": game, "options": options})["game_id"])

    def seat(game_id: str, name: str, bot: bool = False) -> None:
        site.api("POST", f"/games/{game_id}/seats", json={"name": name, "bot": bot})

    open_ = create("murlan")
    seat(open_, "Ann")
    playing = create("hazari")
    seat(playing, "Bea")  # the deal waits for Bea's arrangement
    for n in range(3):
        seat(playing, f"Bot {n + 1}", bot=True)
    wait_for("the deal", lambda: site.view(playing)["status"] == "playing")
    finished = create("hazari", target=400)
    for n in range(4):
        seat(finished, f"Robo {n}", bot=True)
    wait_for(
        "the match to end",
        lambda: (v := site.view(finished))["status"] == "ended" and v["server_seed"],
        timeout_s=60,
    )
    abandoned = create("murlan")
    seat(abandoned, "Cy")  # a started game (a table with a seat free expires instead)
    for n in range(3):
        seat(abandoned, f"Droid {n + 1}", bot=True)
    wait_for("Cy's turn", lambda: 0 in site.view(abandoned)["to_act"], timeout_s=30)
    later = int(time.time() * 1000) + 2 * 3600 * 1000
    assert own.service.abandon_if_idle(abandoned, now_ms=later)
    assert site.view(abandoned)["abandoned"] == "idle"
    return Tables(open_, playing, finished, abandoned)


@pytest.fixture
def open_page(browser: Browser, own: Own) -> Iterator[Any]:
    """Opens pages at a given size; any script error fails the test."""
    contexts: list[Any] = []
    errors: list[str] = []

    def open_at(size: dict[str, int]) -> Page:
        context = browser.new_context(base_url=own.site.url, viewport=size)
        context.set_default_timeout(15_000)
        contexts.append(context)
        return collect_errors(context.new_page(), errors)

    yield open_at
    for context in contexts:
        context.close()
    assert not errors, errors


def overflow(page: Page) -> int:
    """How many pixels the page is wider than the screen (0: no horizontal scroll)."""
    return int(
        page.evaluate(
            "() => Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)"
            " - document.documentElement.clientWidth"
        )
    )


def assert_fits(page: Page, what: str) -> None:
    wider = overflow(page)
    assert wider <= 0, f"{what} is {wider} px wider than the {NARROW['width']} px screen"


def shot(own: Own, page: Page, name: str) -> None:
    """Every state the tests reach is saved and checked by axe-core (WCAG 2 AA)."""
    own.site.shot(page, f"pages-{name}")
    assert_accessible(page, name)


# -- the rules ---------------------------------------------------------------------------


@pytest.mark.parametrize("game", list(GAMES))
def test_rules_pages_render_headings_and_tables_and_fit_a_phone(
    open_page: Any, own: Own, game: str
) -> None:
    for label, size in (("desktop", DESKTOP), ("phone", PHONE)):
        page = open_page(size)
        page.goto(f"/rules/{game}")
        expect(page.locator("article.doc h1")).to_have_text(GAMES[game])
        expect(page.locator("article.doc h2").first).to_be_visible()
        assert page.locator("article.doc h2").count() >= 4
        expect(page.locator("article.doc code")).to_have_count(0)
        expect(page.locator("#other-text a")).to_have_attribute(
            "href", f"/rules/{game}?reference=1"
        )
        tables = page.locator("article.doc .table-scroll > table")
        assert tables.count() >= 1
        expect(tables.first.locator("th").first).to_be_visible()
        expect(page.locator(".game-tabs a[aria-current='page']")).to_have_text(GAMES[game])
        expect(page).to_have_title(f"Rules of {GAMES[game]} · cardroom")
        assert page.evaluate("document.documentElement.lang") == "en"
        # the contents lead to a heading
        page.locator(".toc summary").click()
        page.locator(".toc a").nth(1).click()
        assert page.evaluate("location.hash") != ""
        page.evaluate("window.scrollTo(0, 0)")
        shot(own, page, f"rules-{game}-{label}")
    page = open_page(NARROW)
    page.goto(f"/rules/{game}")
    expect(page.locator("article.doc h1")).to_be_visible()
    assert_fits(page, f"/rules/{game}")
    # a wide table scrolls inside its own box, not the page
    boxes = page.locator(".table-scroll")
    for i in range(boxes.count()):
        width = boxes.nth(i).evaluate("b => b.getBoundingClientRect().right")
        assert width <= NARROW["width"]


def test_rules_in_a_language_without_a_translation_say_so(
    open_page: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every game has its Russian rules; a docs/ with the English ones only stands
    # for a language whose translation is still to come.
    (tmp_path / "play").mkdir()
    for game in GAMES:
        (tmp_path / "play" / f"{game}.md").write_text(
            (rules_module.docs_dir() / "play" / f"{game}.md").read_text(encoding="utf-8"),
            encoding="utf-8",
        )
    monkeypatch.setattr(rules_module, "docs_dir", lambda: tmp_path)
    page = open_page(PHONE)
    page.goto("/rules/murlan?lang=ru")
    assert page.evaluate("document.documentElement.lang") == "ru"
    expect(page.locator("#not-translated")).to_be_visible()
    expect(page.locator("article.doc")).to_have_attribute("lang", "en")
    expect(page.locator(".game-tabs a").first).to_have_attribute("href", "/rules/hazari?lang=ru")


# -- the lobby ---------------------------------------------------------------------------

AGE = re.compile(r"^started \d+ (second|minute)s? ago, last move \d+ (second|minute)s? ago$")


def test_the_lobby_shows_ages_sorts_abandoned_games_last_and_fits_a_phone(
    open_page: Any, own: Own, tables: Tables
) -> None:
    page = open_page(DESKTOP)
    page.goto("/")
    rows = page.locator("#games tbody tr")
    expect(rows).to_have_count(4)
    order = rows.evaluate_all("rows => rows.map(r => r.dataset.game)")
    assert set(order[:2]) == {tables.open, tables.playing}, order
    assert order[2:] == [tables.finished, tables.abandoned], order
    for game_id in (tables.open, tables.playing, tables.finished, tables.abandoned):
        age = page.locator(f'#games tr[data-game="{game_id}"] .age').inner_text()
        assert AGE.match(age), age
    abandoned = page.locator(f'#games tr[data-game="{tables.abandoned}"]')
    expect(abandoned.locator(".tag.status-abandoned")).to_have_text("abandoned")
    expect(
        page.locator(f'#games tr[data-game="{tables.finished}"] .tag.status-ended')
    ).to_have_text("finished")
    expect(page.locator(f'#games tr[data-game="{tables.open}"]')).to_contain_text("3 free seats")
    shot(own, page, "lobby-desktop")

    phone = open_page(PHONE)
    phone.goto("/")
    expect(phone.locator("#games tbody tr")).to_have_count(4)
    expect(phone.locator(f'#games tr[data-game="{tables.playing}"] .age')).to_be_visible()
    shot(own, phone, "lobby-phone")
    narrow = open_page(NARROW)
    narrow.goto("/")
    expect(narrow.locator("#games tbody tr")).to_have_count(4)
    assert_fits(narrow, "the lobby")


def test_the_lobby_links_the_rules(open_page: Any) -> None:
    page = open_page(PHONE)
    page.goto("/")
    page.select_option("#game", "azi")
    expect(page.locator("#game-rules")).to_have_attribute("href", "/rules/azi")
    page.locator("#game-rules").click()
    page.wait_for_url("**/rules/azi")
    expect(page.locator("article.doc h1")).to_have_text("Azi")
    page.goto("/")
    page.locator("header nav").get_by_role("link", name="Rules").click()
    page.wait_for_url("**/rules")
    for name in GAMES.values():
        expect(page.locator(".rules-index").get_by_role("link", name=name)).to_be_visible()


def test_the_table_header_links_the_rules(open_page: Any, tables: Tables) -> None:
    page = open_page(DESKTOP)
    page.goto(f"/table/{tables.playing}")
    link = page.locator("header nav #rules-link")
    expect(link).to_be_visible()
    expect(link).to_have_attribute("href", "/rules/hazari")
    link.click()
    page.wait_for_url("**/rules/hazari")
    expect(page.locator("article.doc h1")).to_have_text("Hazari Lite")


# -- the replay --------------------------------------------------------------------------


def open_replay(page: Page, game_id: str) -> None:
    page.goto(f"/replay/{game_id}")
    expect(page.locator("#step-pos")).to_contain_text("Step")
    expect(page.locator("#verify-badge")).to_contain_text("Shuffle verified")


def test_the_replay_opens_at_the_top_and_forward_stays_in_place(
    open_page: Any, own: Own, tables: Tables
) -> None:
    page = open_page(PHONE)
    open_replay(page, tables.finished)
    assert page.evaluate("window.scrollY") == 0, "the replay did not open at the top"
    expect(page.locator("header nav #rules-link")).to_have_attribute("href", "/rules/hazari")
    forward = page.locator("#forward")
    start = forward.bounding_box()
    assert start is not None and start["y"] + start["height"] <= PHONE["height"]
    steps = [page.locator("#step-pos").inner_text()]
    for _ in range(10):
        forward.click()
        expect(page.locator("#step-pos")).not_to_have_text(steps[-1])
        steps.append(page.locator("#step-pos").inner_text())
        box = forward.bounding_box()
        assert box is not None and (box["x"], box["y"]) == (start["x"], start["y"]), (
            f"Forward moved from {start} to {box} at {steps[-1]}"
        )
        assert page.evaluate("window.scrollY") == 0
    shot(own, page, "replay-phone")

    # Scrolled down to the table, the controls stay on screen and in place.
    page.locator("#replay-board").scroll_into_view_if_needed()
    page.evaluate("window.scrollBy(0, 200)")
    assert page.evaluate("window.scrollY") > 0
    pinned = forward.bounding_box()
    assert pinned is not None and 0 <= pinned["y"] < 120
    for _ in range(10):
        before = page.locator("#step-pos").inner_text()
        forward.click()
        expect(page.locator("#step-pos")).not_to_have_text(before)
        box = forward.bounding_box()
        assert box is not None and box["y"] == pinned["y"], (pinned, box)
    page.screenshot(path=str(SCREENSHOTS / "pages-replay-phone-scrolled.png"))

    desktop = open_page(DESKTOP)
    open_replay(desktop, tables.finished)
    desktop.locator("#forward").click()
    shot(own, desktop, "replay-desktop")
    narrow = open_page(NARROW)
    open_replay(narrow, tables.finished)
    assert_fits(narrow, "the replay")


# -- the fairness page ---------------------------------------------------------------------


def test_the_fairness_page_renders_its_document_and_fits_a_phone(
    open_page: Any, own: Own, tables: Tables
) -> None:
    wait_for(
        "the finished game to be counted",
        lambda: own.site.api("GET", "/fairness/report")["games"] >= 1,
        timeout_s=60,
    )
    for label, size in (("desktop", DESKTOP), ("phone", PHONE)):
        page = open_page(size)
        page.goto("/fairness")
        expect(page.locator("#totals")).to_contain_text("finished game")
        shot(own, page, f"fairness-{label}")
        page.locator("#doc-link a").click()
        page.wait_for_url("**/fairness/document")
        doc = page.locator("#fairness-doc")
        expect(doc).to_have_attribute("lang", "en")
        expect(page.locator("#in-english")).to_be_hidden()  # an English reader needs no note
        expect(doc.get_by_role("heading", name="The algorithm, exactly")).to_be_visible()
        expect(doc.locator("pre").first).to_be_visible()
        assert "## " not in doc.inner_text()
        shot(own, page, f"fairness-document-{label}")
    page = open_page(NARROW)
    page.goto("/fairness")
    expect(page.locator("#totals")).to_contain_text("finished game")
    for summary in page.locator("details > summary").all():
        summary.click()
    assert_fits(page, "/fairness with every section open")
    page.goto("/fairness/document")
    assert_fits(page, "/fairness/document")
