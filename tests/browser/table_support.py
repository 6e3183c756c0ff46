"""What the table's browser tests share: a recorder of what the board showed and of the
steps at which a move control was live (and whether the seat was to act there), the game's
events from the API, playing a Murlan seat, and checks of the page's words and layout."""

from __future__ import annotations

import re
import time
from typing import Any

from playwright.sync_api import Browser, BrowserContext, Page, ViewportSize

from .helpers import Site, keep_pace

# Kept by the page itself: every play the strip above the board showed (a MutationObserver
# sees each one, since the page holds each play before the next), and every end-of-hand
# panel with its text when it opened.
RECORDER = r"""
(() => {
  window.__plays = [];
  window.__panels = [];
  window.__since = null;
  const seen = () => {
    // The step of the first view drawn: plays made before it are history, not shown live.
    const meta = document.getElementById('meta');
    const step = meta && meta.dataset.version;
    if (window.__since === null && step) window.__since = Number(step);
    const strip = document.getElementById('last-play');
    if (strip) {
      const v = Number(strip.dataset.version);
      const last = window.__plays[window.__plays.length - 1];
      if (!last || last.version !== v)
        window.__plays.push({ version: v, type: strip.dataset.type, text: strip.innerText });
    }
    const panel = document.getElementById('summary');
    if (panel && !panel.hidden) {
      const key = panel.dataset.kind + ':' + (panel.querySelector('h2') || {}).textContent;
      const last = window.__panels[window.__panels.length - 1];
      if (!last || last.key !== key)
        window.__panels.push({ key, kind: panel.dataset.kind, text: panel.innerText });
    }
  };
  const all = { subtree: true, childList: true, attributes: true };
  new MutationObserver(seen).observe(document, all);
})();
"""

# Kept by the page: the latest step shown (the view drawn, or a later event held on the
# table) at every change of the screen where a move button (not Azi's "leave after this
# hand", which is legal at any time) is enabled, and whether the seat's turn tag shows.
LIVE_CONTROLS = r"""
(() => {
  window.__live = [];
  window.__tagged = [];
  const MOVES =
    '#actions button[data-action]:not([data-action="leave"]):not([data-action="reset"])';
  const shown = () => {
    const meta = document.getElementById('meta');
    const drawn = meta && meta.dataset.version ? Number(meta.dataset.version) : 0;
    const top = document.querySelector('#log li .ver');
    return Math.max(drawn, top ? Number(top.textContent) : 0);
  };
  const keep = (list, step) => {
    if (list[list.length - 1] !== step) list.push(step);
  };
  const look = () => {
    const live = [...document.querySelectorAll(MOVES)].some(
      (b) => !b.disabled && b.getClientRects().length > 0,
    );
    if (live) keep(window.__live, shown());
    for (const tag of document.querySelectorAll('#seats .seat .tag.turn')) {
      const seat = Number(tag.closest('.seat').dataset.seat);
      const step = shown();
      const last = window.__tagged[window.__tagged.length - 1];
      if (!last || last[0] !== seat || last[1] !== step) window.__tagged.push([seat, step]);
    }
  };
  const all = { subtree: true, childList: true, attributes: true, characterData: true };
  new MutationObserver(look).observe(document, all);
})();
"""

# Moves seats make together (every seat decides, in any order): another seat's move in
# between does not end this seat's turn.
TOGETHER = {"Arranged", "Discarded"}


def acts(event: dict[str, Any], seat: int) -> bool:
    return event.get("seat") == seat or event.get("from_seat") == seat


def stale(steps: list[int], events: list[dict[str, Any]], seat: int) -> list[str]:
    """The steps at which the seat was not to act: after step N nothing may happen before
    the seat's own next move but other seats' moves made together."""
    found = []
    last = events[-1]["version"] if events else 0
    for step in steps:
        if step >= last:
            continue  # still the latest step: the test stopped there
        after = [e for e in events if e["version"] > step]
        own = next((i for i, e in enumerate(after) if acts(e, seat)), None)
        between = after if own is None else after[:own]
        others = [e for e in between if e["type"] not in TOGETHER]
        if others:  # without a move of its own yet: only others' moves made together since
            found.append(f"step {step}: next were {[e['type'] for e in after[:3]]}")
    return found


SNAKE = re.compile(r"\b[a-z]+_[a-z_]+\b")
CARD_CODE = re.compile(r"\b(?:[2-9TJQKA][CDHS]|BJ|RJ)\b")


def events_of(site: Site, game_id: str, token: str | None = None) -> list[dict[str, Any]]:
    """Every event of the game the viewer may see, oldest first."""
    out: list[dict[str, Any]] = []
    after = 0
    while True:
        page = site.api("GET", f"/games/{game_id}/events?after={after}", token)
        events = page["events"]
        if not events:
            return out
        out.extend(events)
        after = events[-1]["version"]


class EventLog:
    """The events of a game the viewer may see, oldest first, each read once: a
    poll asks only for the events after the last one it got (the log only grows)."""

    def __init__(self, site: Site, game_id: str, token: str | None = None) -> None:
        self.site, self.game_id, self.token = site, game_id, token
        self.events: list[dict[str, Any]] = []

    def read(self) -> list[dict[str, Any]]:
        """Every event so far (what :func:`events_of` returns), reading only the new ones."""
        after = self.events[-1]["version"] if self.events else 0
        while True:
            path = f"/games/{self.game_id}/events?after={after}"
            events = self.site.api("GET", path, self.token)["events"]
            if not events:
                return self.events
            self.events.extend(events)
            after = events[-1]["version"]

    def has(self, kind: str) -> bool:
        return any(e["type"] == kind for e in self.read())


def play_murlan_turn(page: Page, site: Site, game_id: str, token: str) -> bool:
    """If it is the seat's turn, make the first legal play by clicking (or pass, or give
    back); returns whether a move was made."""
    view = site.view(game_id, token)
    moves = view["legal_moves"]
    if not moves or view["status"] != "playing":
        return False
    # The page shows the turn once it has shown every play before it (on a phone the
    # status line sits in the bar with the hand, so the one at the top is hidden).
    page.wait_for_selector("#status.mine", state="attached", timeout=30_000)
    chosen = next((m for m in moves if m["action"] == "play"), moves[0])
    if chosen["action"] == "play":
        for card in chosen["cards"]:
            page.locator(f'#hand button.card[data-card="{card}"]').click()
        page.locator('#actions button[data-action="play"]').click()
    elif chosen["action"] == "give_back":
        page.locator(f'#hand button.card[data-card="{chosen["card"]}"]').click()
        page.locator('#actions button[data-action="give_back"]').click()
    else:
        page.locator('#actions button[data-action="pass"]').click()
    version = view["version"]
    deadline = time.monotonic() + 15
    while site.view(game_id, token)["version"] <= version:
        refused = page.locator("#move-error").inner_text()
        assert not refused, f"the move was refused: {refused}"
        assert time.monotonic() < deadline, "the move did not land"
        time.sleep(0.05)
    return True


def visible_text(page: Page) -> str:
    """The text a player can read, plus the labels screen readers announce."""
    return str(
        page.evaluate(
            """() => [document.body.innerText,
                ...[...document.querySelectorAll('[aria-label],[title]')].map((n) =>
                  (n.getAttribute('aria-label') || '') + ' ' + (n.getAttribute('title') || ''))
              ].join('\\n')"""
        )
    )


def untranslated(text: str) -> list[str]:
    """snake_case words and bare card codes ("3S", "TD") in text a player reads."""
    return sorted(set(SNAKE.findall(text)) | set(CARD_CODE.findall(text)))


def horizontal_overflow(page: Page) -> int:
    """How many pixels the page is wider than the window (0: no horizontal scroll)."""
    return int(
        page.evaluate(
            "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
    )


# The contrast ratio (WCAG 2) of each of your own cards: its text against its face, both as
# drawn (the opacity of the card and of everything around it blended onto the panel).
CARD_CONTRAST = """
() => {
  const rgb = (s) => (s.match(/[\\d.]+/g) || []).map(Number);
  const lin = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
  const lum = ([r, g, b]) => 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
  const mix = (a, b, p) => a.map((x, i) => p * x + (1 - p) * b[i]);
  return [...document.querySelectorAll('#hand .card')].map((card) => {
    let opacity = 1;
    for (let n = card; n; n = n.parentElement) opacity *= Number(getComputedStyle(n).opacity);
    const under = rgb(getComputedStyle(document.getElementById('you')).backgroundColor);
    const face = rgb(getComputedStyle(card).backgroundColor);
    const faceA = face.length > 3 ? face[3] : 1;
    const bg = mix(mix(face.slice(0, 3), under, faceA), under, opacity);
    const ink = rgb(getComputedStyle(card.querySelector('.rank')).color);
    const fg = mix(mix(ink.slice(0, 3), bg, ink.length > 3 ? ink[3] : 1), under, opacity);
    const [hi, lo] = [lum(fg), lum(bg)].sort((a, b) => b - a);
    return { card: card.dataset.card, disabled: card.disabled, ratio: (hi + 0.05) / (lo + 0.05) };
  });
}
"""


def shot_screen(page: Page, site: Site, name: str) -> None:
    """What the screen shows (not the whole page): a phone's view of the table."""
    site.screenshots.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(site.screenshots / f"{name}.png"), full_page=False)


def context(
    browser: Browser, site: Site, size: ViewportSize, lang: str, phone: bool
) -> BrowserContext:
    """A browser context at ``size`` (a touch phone, or not) reading ``lang``, the
    table's pace instant."""
    made: BrowserContext = browser.new_context(
        base_url=site.url, viewport=size, has_touch=phone, is_mobile=phone
    )
    made.set_default_timeout(20_000)
    keep_pace(made, "instant", lang)
    return made
