"""Every word on the screen in the player's language: a browser reads every kind of page in
ru, hu, bg, sq and ne, in the states players meet, and fails on English.

The games are played through the API with bots (no thinking delay), once for the module:
a table waiting for players, a Murlan turn, a Hazari arrangement, an Azi hand whose pot was
just settled (its panel opened), the final standings of the three games, their replays (a
finished one, verified, and a running one), and the fairness report counting them. Then, in
one browser context per language, the test visits the lobby (and two refusals of its form),
each table state, the replays, the rules (the list, each game for players and for
developers, a game that does not exist), the fairness page (with "my luck") and its
document.

What it reads is what a player sees: the text nodes that are rendered, the options of
every list, the page's title, and the ``title``, ``placeholder``, ``aria-label`` and
``alt`` of elements. It fails on any English message of the catalogs and on common
English words, outside elements marked ``lang="en"``; players' names, game ids, card
notation, addresses and code (``<code>``: move names, fields) are exempt. On a 390 px
phone, no state is wider than the screen, and no table is cut off: a wide one scrolls
inside its own box. Screenshots of every state, desktop and phone, in every language.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from .helpers import Site, collect_errors, keep_pace, wait_for
from .i18n_support import catalog, english_found
from .table_support import EventLog, horizontal_overflow

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.xdist_group("i18n-screen")]

LANGUAGES = ("ru", "hu", "bg", "sq", "ne")
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
NO_LIMIT = {"turn_timeout_s": "none"}
GLOSSARY = Path(__file__).resolve().parents[2] / "docs" / "glossary"

# The text a player reads, outside what is marked English and outside code: rendered text
# nodes, every option of a list, the title, and the labels, titles, placeholders and alts.
SCREEN = """() => {
  const skipped = (el) => {
    const marked = el.closest('[lang]');
    if (marked && marked !== document.documentElement && marked.lang.startsWith('en')) return true;
    return Boolean(el.closest('code, pre, kbd, samp'));
  };
  const shown = (el) => el.closest('select') || el.getClientRects().length > 0;
  const out = [document.title];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    const text = node.textContent.trim();
    if (el && text && shown(el) && !skipped(el)) out.push(text);
  }
  for (const el of document.body.querySelectorAll('[title], [aria-label], [placeholder], [alt]')) {
    if (skipped(el)) continue;
    for (const attr of ['title', 'aria-label', 'placeholder', 'alt']) {
      if (el.getAttribute(attr)) out.push(el.getAttribute(attr));
    }
  }
  return out.join('\\n');
}"""

# Elements wider than the screen that no box scrolling sideways holds: cut off on a phone.
CUT_OFF = """() => {
  const width = document.documentElement.clientWidth;
  const scrolls = (el) => ['auto', 'scroll'].includes(getComputedStyle(el).overflowX);
  const out = [];
  for (const el of document.querySelectorAll('body *')) {
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.right <= width + 1) continue;
    let holder = el.parentElement;
    while (holder && !(scrolls(holder) && holder.getBoundingClientRect().right <= width + 1))
      holder = holder.parentElement;
    const what = `${el.tagName.toLowerCase()}.${el.className}`;
    if (!holder) out.push(`${what} right=${Math.round(box.right)}`);
  }
  return out.slice(0, 8);
}"""

COMMON_ENGLISH = frozenset(
    """the and you your with for this that are not has have from game games seat seats table
    tables card cards player players turn play plays pass bet call fold hand hands deal deals
    round score points rules lobby replay verify verified loading error wait waiting join take
    open close show next back new create name seed shuffle none more than when will can must out
    all was one two three four who what where how yet been only each every here there some any
    its our his her them they their won wins winner pot trump trumps stack chips buy bid highest
    lowest first last left right over end ended started move moves again try reload page server
    click select choose copy link share ready done failed could should would does did nothing
    something unknown found such""".split()  # noqa: SIM905
)
"""Common English words: none is a word of the pages' other languages (a language whose
own catalogs or glossary use one of them, say "pot" in Albanian, is let off that one)."""

ADDRESS = re.compile(r"\S*/\S*|\S+\.json\b")
TOKEN = re.compile(r"(?<![\w-])(?=[\w-]*\d)[\w-]{16,}(?![\w-])")
"""Seeds, commitments and ids: long runs of letters and digits."""
CARD = re.compile(r"(?<![\w-])(10|[2-9TJQKAÁDB])[♠♥♦♣]")


@cache
def glossary_english(lang: str) -> frozenset[str]:
    """The English words the language's glossary says its players use (with the reason)."""
    english = json.loads((GLOSSARY / f"{lang}.json").read_text(encoding="utf-8"))["english"]
    return frozenset(w.lower() for w in english)


@cache
def own_words(lang: str) -> frozenset[str]:
    words = {w.lower() for m in catalog(lang).values() for w in re.findall(r"[A-Za-z]+", m)}
    return words | glossary_english(lang)


def common_english(text: str, lang: str) -> list[str]:
    """The common English words in ``text`` (whole words: not part of a name, an id or a
    hyphenated or underscored token), with a little of what is around each."""
    allowed = own_words(lang)
    lowered = text.lower()
    found = []
    for word in sorted(COMMON_ENGLISH - allowed):
        if word not in lowered:  # quicker than the pattern, which needs the word in the text
            continue
        match = re.search(rf"(?<![\w-]){word}(?![\w-])", text, re.I)
        if match:
            around = text[max(0, match.start() - 40) : match.end() + 40].replace("\n", " | ")
            found.append(f"{word!r} in …{around}…")
    return found


@dataclass
class Games:
    seating: tuple[str, str]
    murlan_turn: tuple[str, str]
    hazari_arranging: tuple[str, str]
    azi_settled: tuple[str, str]
    finals: dict[str, str]
    names: set[str] = field(default_factory=set)


def create(site: Site, game: str, **body: Any) -> str:
    return str(site.api("POST", "/games", json={"game": game, **body})["game_id"])


def sit(site: Site, game_id: str, name: str, bot: bool = False) -> str:
    granted = site.api("POST", f"/games/{game_id}/seats", json={"name": name, "bot": bot})
    return str(granted.get("token") or "")


def seat_with_bots(site: Site, game: str, players: int, **body: Any) -> tuple[str, str]:
    game_id = create(site, game, **body)
    token = sit(site, game_id, "Ada")
    for n in range(1, players):
        sit(site, game_id, f"Robo {n}", bot=True)
    return game_id, token


def my_turn(site: Site, game_id: str, token: str) -> Any:
    return wait_for(f"a turn at {game_id}", lambda: site.view(game_id, token)["legal_moves"], 30)


def azi_after_a_pot(site: Site) -> tuple[str, str]:
    """An Azi table of three where a pot has just been settled and the next hand waits on
    Ada, who has not moved since: her page opens on the pot's panel, folded."""
    game_id, token = seat_with_bots(site, "azi", 3, seats=3, options={"buy_in": 5000, **NO_LIMIT})
    log = EventLog(site, game_id, token)
    deadline = time.monotonic() + 90
    while True:
        assert time.monotonic() < deadline, "no pot was settled"
        view = site.view(game_id, token)
        events = log.read()
        settled = [e["version"] for e in events if e["type"] == "PotSettled"]
        mine_since = settled and any(
            e.get("seat") == view["seat"] and e["version"] > settled[-1] for e in events
        )
        if view["legal_moves"] and settled and not mine_since:
            return game_id, token
        if view["legal_moves"]:
            moves = {m["action"]: m for m in view["legal_moves"]}
            move = moves.get("fold") or moves.get("decline") or view["legal_moves"][0]
            site.api("POST", f"/games/{game_id}/moves", token, json={"move": move})
        else:
            time.sleep(0.05)


def finished(site: Site, game: str, players: int, **body: Any) -> str:
    game_id = create(site, game, **body)
    for n in range(players):
        sit(site, game_id, f"Mira {n}", bot=True)
    wait_for(
        f"{game} {game_id} to end",
        lambda: (v := site.view(game_id))["status"] == "ended" and v["server_seed"],
        timeout_s=120,
    )
    return game_id


@pytest.fixture(scope="module")
def games(site: Site) -> Iterator[Games]:
    seating = create(site, "murlan", options=NO_LIMIT)
    played = Games(
        seating=(seating, sit(site, seating, "Ada")),
        murlan_turn=seat_with_bots(site, "murlan", 4, options=NO_LIMIT),
        hazari_arranging=seat_with_bots(site, "hazari", 4, options=NO_LIMIT),
        azi_settled=azi_after_a_pot(site),
        finals={
            "murlan": finished(site, "murlan", 4),
            "hazari": finished(site, "hazari", 4, options={"target": 400}),
            "azi": finished(
                site, "azi", 4, seats=4, options={"buy_in": 40, "ante": 10, "min_bet": 10}
            ),
        },
    )
    my_turn(site, *played.murlan_turn)
    my_turn(site, *played.hazari_arranging)
    ids = [
        played.seating[0],
        played.murlan_turn[0],
        played.hazari_arranging[0],
        played.azi_settled[0],
    ]
    ids += list(played.finals.values())
    played.names = {s["name"] for g in ids for s in site.view(g)["seats"] if s.get("name")} | set(
        ids
    )
    yield played
    site.end_games(
        {
            played.seating[0],
            played.murlan_turn[0],
            played.hazari_arranging[0],
            played.azi_settled[0],
        }
    )


class Reader:
    """One browser context per language: a player who chose it, reading page after page."""

    def __init__(self, page: Page, site: Site, lang: str, games: Games) -> None:
        self.page, self.site, self.lang, self.games = page, site, lang, games
        self.problems: list[str] = []

    def read(self, name: str, phone: bool = True) -> None:
        """Read what the page shows now (and on a phone), with screenshots of both."""
        page = self.page
        text = self.clean(str(page.evaluate(SCREEN)))
        kept = set(self.games.names) | glossary_english(self.lang)
        for found in english_found(text, self.lang, kept):
            self.problems.append(f"{name}: {found}")
        for found in common_english(text, self.lang):
            self.problems.append(f"{name}: common English {found}")
        self.site.shot(page, f"screen-{name}-{self.lang}-desktop")
        if phone:
            page.set_viewport_size(PHONE)
            page.wait_for_timeout(100)  # one frame for the layout to settle
            self.site.shot(page, f"screen-{name}-{self.lang}-phone")
            if (wider := horizontal_overflow(page)) > 0:
                self.problems.append(f"{name}: {wider} px wider than a 390 px phone")
            if cut := page.evaluate(CUT_OFF):
                self.problems.append(f"{name}: cut off on a phone: {cut}")
            page.set_viewport_size(DESKTOP)

    def clean(self, text: str) -> str:
        """The text without what is exempt: names, ids, addresses, card notation."""
        for name in sorted(self.games.names, key=len, reverse=True):
            text = text.replace(name, " ")
        return CARD.sub(" ", TOKEN.sub(" ", ADDRESS.sub(" ", text)))

    def goto(self, path: str) -> Page:
        self.page.goto(path)
        expect(self.page.locator("html")).to_have_attribute("lang", self.lang)
        return self.page

    def table(self, game_id: str, token: str | None = None, drawn: str = "#seats") -> Page:
        page = self.goto(f"/table/{game_id}" + (f"#seat={token}" if token else ""))
        expect(page.locator(drawn)).not_to_be_empty()
        return page


@pytest.fixture
def reader(
    request: pytest.FixtureRequest, browser: Browser, site: Site, games: Games
) -> Iterator[Reader]:
    # The language chosen before (kept by the pages) and the browser's own (Accept-Language,
    # which the rules pages, rendered by the server, read).
    context = browser.new_context(base_url=site.url, viewport=DESKTOP, locale=request.param)
    context.set_default_timeout(20_000)
    keep_pace(context, lang=request.param)
    errors: list[str] = []
    page = collect_errors(context.new_page(), errors)
    yield Reader(page, site, request.param, games)
    context.close()
    assert not errors, errors


def read_the_lobby(r: Reader) -> None:
    page = r.goto("/")
    expect(page.locator("#games tbody tr").first).to_be_visible()
    r.read("lobby")
    # A refused option: the server's code and bounds, worded in the reader's language.
    page.fill("#player-name", "Ada")
    page.select_option("#game", "azi")
    page.fill('#create-form [name="buy_in"]', "5")
    page.fill('#create-form [name="ante"]', "10")
    page.locator('#create-form button[type="submit"]').click()
    expect(page.locator("#create-error")).not_to_be_empty()
    assert "10" in page.locator("#create-error").inner_text()
    r.read("lobby-option-refused", phone=False)
    # A client seed of the wrong form.
    page.fill('#create-form [name="buy_in"]', "1000")
    page.fill("#client-seed", "no spaces!")
    page.locator('#create-form button[type="submit"]').click()
    expect(page.locator("#create-error")).not_to_contain_text("10")
    expect(page.locator("#create-error")).not_to_be_empty()
    r.read("lobby-seed-refused", phone=False)


def read_the_tables(r: Reader) -> None:
    g = r.games
    page = r.table(*g.seating)
    expect(page.locator("#waiting")).to_be_visible()
    r.read("table-seating")
    page = r.table(*g.murlan_turn)
    expect(page.locator("#actions button").first).to_be_visible()
    r.read("table-murlan-turn")
    page = r.table(*g.hazari_arranging)
    expect(page.locator("#actions button").first).to_be_visible()
    r.read("table-hazari-arranging")
    page = r.table(*g.azi_settled)
    panel = page.locator('#summary[data-kind="PotSettled"]')
    expect(panel).to_be_visible()
    panel.locator("details > summary").click()  # the pot's table, opened
    expect(panel.locator("table")).to_be_visible()
    r.read("table-azi-pot-settled")
    for game, game_id in g.finals.items():
        page = r.table(game_id)
        expect(page.locator('#summary[data-kind="final"] table')).to_be_visible()
        r.read(f"table-{game}-final")
    page = r.table("NoSuchGame000000", drawn="#missing-text")
    r.read("table-no-such-game", phone=False)


def read_the_replays(r: Reader) -> None:
    page = r.goto(f"/replay/{r.games.finals['hazari']}")
    expect(page.locator("#verify-badge")).to_have_attribute("data-code", "verified")
    r.read("replay-verified")
    page = r.goto(f"/replay/{r.games.murlan_turn[0]}")
    expect(page.locator("#verify-badge")).to_have_attribute("data-code", "seed-not-revealed")
    r.read("replay-running", phone=False)
    page = r.goto("/replay/NoSuchGame000000")
    expect(page.locator("#error")).not_to_be_empty()
    r.read("replay-no-such-game", phone=False)


def rules_page(r: Reader, path: str) -> Page:
    """A rules page once its script has put the header in the reader's words (the
    server sends the document translated and the header in English)."""
    page = r.goto(path)
    lobby = catalog(r.lang)["common.lobby"]
    expect(page.locator('header [data-i18n="common.lobby"]')).to_have_text(lobby)
    return page


def read_the_rules(r: Reader) -> None:
    rules_page(r, "/rules")
    r.read("rules-index", phone=False)
    for game in ("hazari", "azi", "murlan"):
        rules_page(r, f"/rules/{game}")
        r.read(f"rules-{game}", phone=game == "azi")
        rules_page(r, f"/rules/{game}?reference=1")
        r.read(f"rules-{game}-reference", phone=False)
    page = rules_page(r, "/rules/poker")
    expect(page.locator("#no-such-game")).to_contain_text("poker")
    r.read("rules-no-such-game")


def read_the_fairness_pages(r: Reader) -> None:
    page = r.goto("/fairness")
    expect(page.locator("#verdict")).to_have_attribute("data-code", re.compile(".+"))
    page.fill("#luck-name", "Mira 0")
    page.locator("#luck-form button").click()
    expect(page.locator("#luck svg, #luck p").first).to_be_visible()
    r.read("fairness")
    r.goto("/fairness/document")
    r.read("fairness-document", phone=False)


@pytest.mark.parametrize("reader", LANGUAGES, indirect=True)
def test_every_page_speaks_the_readers_language(reader: Reader) -> None:
    for visit in (
        read_the_lobby,
        read_the_tables,
        read_the_replays,
        read_the_rules,
        read_the_fairness_pages,
    ):
        visit(reader)
    assert not reader.problems, f"{reader.lang}:\n" + "\n".join(reader.problems)


def test_the_scan_finds_english(site: Site) -> None:
    """The detectors are not blind: what the pages showed before they spoke the reader's
    language is caught in every language."""
    sample = (
        "ante 10 is out of range 1..5 | "
        "Nothing unusual: every tested feature is consistent with a fair deal."
    )
    for lang in LANGUAGES:
        assert common_english(sample, lang), lang
        assert english_found("Every seat at this table is taken.", lang), lang
