"""What the browser tests share: the browser's settings, the site and its API."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import httpx

from service.api.limits import Limits
from service.config import load_settings

CHROMIUM = "/usr/bin/chromium-headless-shell"
"""Debian's headless shell of Chromium: the same Blink and V8 as the browser without its
windows and their own pages, so a browser context costs about a quarter of the CPU
(``tests/ensure-chromium.sh`` installs it)."""
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

T = TypeVar("T")

HTTP = httpx.Client(timeout=10)
"""The tests' own requests to a site, over kept connections (a client made per
request would build its TLS context, certificates and all, every time)."""


def collect_errors(page: Any, errors: list[str]) -> Any:
    """Append ``page``'s script errors and console errors to ``errors`` (a
    resource the server refuses on purpose, a 404 or a 429, is not one)."""
    page.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
    page.on(
        "console",
        lambda msg: (
            errors.append(f"console: {msg.text}")
            if msg.type == "error" and "Failed to load resource" not in msg.text
            else None
        ),
    )
    return page


def keep_pace(target: Any, pace: str = "instant", lang: str | None = None) -> None:
    """Have every page of ``target`` (a Page or a BrowserContext) start with the
    table's display ``pace`` (and ``lang``) chosen, as a player's earlier choice
    kept in the browser would. Tests about something else than the pace run at
    ``instant``, and act once the page shows the step they act on."""
    script = f"localStorage.setItem('cardroom.pace', '{pace}');"
    if lang is not None:
        script += f"localStorage.setItem('cardroom.lang', '{lang}');"
    target.add_init_script(script)


@dataclass
class Site:
    url: str
    screenshots: Path
    limits: Any = None
    """The app's rate limits (:class:`service.api.limits.Limits`)."""
    service: Any = None
    """The app's game service (:class:`service.games.GameService`)."""
    streams: Any = None
    """The app's live-stream slots (:class:`service.api.streamcaps.StreamSlots`)."""

    def unfinished_games(self) -> set[str]:
        """The ids of the site's games that are not over."""
        found: set[str] = set()
        cursor = None
        while True:
            page, cursor = self.service.store.list_games(limit=200, cursor=cursor)
            found.update(g.game_id for g in page if g.status in ("seating", "playing"))
            if cursor is None:
                return found

    def end_games(self, game_ids: set[str]) -> None:
        """Abandon these games (as if idle for years), so that nothing plays them on."""
        years_on = int(time.time() * 1000) + 10 * 365 * 86_400_000
        for game_id in game_ids:
            for _ in range(5):  # a bot's move may land in between: look again
                if self.service.abandon_if_idle(game_id, now_ms=years_on):
                    break
                if self.service.load(game_id).over:
                    break

    def api(self, method: str, path: str, token: str | None = None, **kwargs: Any) -> Any:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        response = HTTP.request(method, self.url + path, headers=headers, **kwargs)
        response.raise_for_status()
        return response.json()

    def view(self, game_id: str, token: str | None = None) -> Any:
        return self.api("GET", f"/games/{game_id}", token)

    def shot(self, page: Any, name: str) -> Path:
        self.screenshots.mkdir(parents=True, exist_ok=True)
        path = self.screenshots / f"{name}.png"
        # a long document (the fairness document, taller than Chromium draws in one piece in
        # good time) is saved as the screen the reader sees, not whole
        tall = page.evaluate("() => document.documentElement.scrollHeight") > FULL_PAGE_MAX_PX
        page.screenshot(path=str(path), full_page=not tall)
        return path


FULL_PAGE_MAX_PX = 8000
"""The tallest page a screenshot takes whole."""


def wait_for(what: str, check: Callable[[], T | None], timeout_s: float = 20.0) -> T:
    """Poll ``check`` until it returns something truthy."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def wait_for_move(page: Any, site: Site, game_id: str, token: str, after: int) -> None:
    """Wait until the move just made has landed (the game moved past ``after``);
    a move the server refused fails at once with the page's explanation."""

    def moved() -> bool:
        refused = page.locator("#move-error").inner_text()
        assert not refused, f"the move was refused: {refused}"
        return bool(site.view(game_id, token)["version"] > after)

    wait_for(f"a version after {after}", moved)


def seat_of(page: Any, game_id: str) -> dict[str, Any]:
    """The seat this page's browser keeps in localStorage for ``game_id``."""
    seat = page.evaluate("id => JSON.parse(localStorage.getItem('cardroom.seat.' + id))", game_id)
    assert seat and seat["token"], "no seat token in localStorage"
    return dict(seat)


def game_id_of(page: Any) -> str:
    return str(page.url.rstrip("/").rsplit("/", 1)[-1])


def create_from_lobby(page: Any, game: str, name: str, fill: dict[str, str] | None = None) -> str:
    """Create a game in the lobby's form, sitting down with bots; returns its id."""
    page.goto("/")
    page.fill("#player-name", name)
    page.select_option("#game", game)
    for field, value in (fill or {}).items():
        page.fill(f'#create-form fieldset[data-game="{game}"] [name="{field}"]', value)
    page.click("text=Create the game and sit down")
    page.wait_for_url("**/table/**")
    return game_id_of(page)


@contextmanager
def budgets_of_a_deployment(site: Site) -> Iterator[Limits]:
    """The site's rate budgets set to the defaults a deployment has (fresh
    buckets) while the block runs, then out of reach again."""
    assert site.limits is not None
    kept = (site.limits.rates, site.limits.shared, site.limits.local)
    defaults = Limits(load_settings(), None)
    site.limits.rates, site.limits.shared, site.limits.local = (
        defaults.rates,
        defaults.shared,
        defaults.local,
    )
    try:
        yield site.limits
    finally:
        site.limits.rates, site.limits.shared, site.limits.local = kept
