"""The verifier in the player's browser: on real replays of all three games it
agrees, on tampered copies (a swapped card, another server seed, another
client seed, another deal number) it fails and names the deal and the seat;
the replay viewer shows its own result beside the server's, and a dishonest
server that serves a doctored replay while its /verify says "verified" is
caught; the offline page is the file in docs/, makes no request, and words
its results in each language; the test vectors of docs/fairness.md and
hypothesis-mutated documents run in the browser."""

from __future__ import annotations

import copy
import hashlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from playwright.sync_api import Browser, Page, Route, expect

from service.web.offline import build

from .helpers import Site, collect_errors, wait_for

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
OFFLINE = ROOT / "docs" / "verifier.html"
GAMES: dict[str, tuple[dict[str, Any], int | None]] = {
    "hazari": ({"target": 360}, None),
    "murlan": ({}, None),
    "azi": ({"buy_in": 40, "ante": 10, "min_bet": 10}, 3),
}


@pytest.fixture(scope="module")
def finished(site: Site) -> dict[str, dict[str, Any]]:
    """One finished game of each kind, played through the API by bots (no thinking
    time) and by a player at the first seat, whose seat this browser may hold: the
    player lets two turns of a second time out, so the table marks the seat away
    and plays it on. With the seat's token and the game's public replay document."""
    out: dict[str, dict[str, Any]] = {}
    for game, (options, seats) in GAMES.items():
        body: dict[str, Any] = {"game": game, "options": {**options, "turn_timeout_s": 1}}
        if seats is not None:
            body["seats"] = seats
        game_id = site.api("POST", "/games", json=body)["game_id"]
        tokens = [
            site.api("POST", f"/games/{game_id}/seats", json={"name": f"Robo {n}", "bot": n > 0})
            for n in range(seats or 4)
        ]
        out[game] = {"id": game_id, "seat": tokens[0]}
    for game, entry in out.items():
        wait_for(
            f"the {game} game to end",
            lambda e=entry: (v := site.view(e["id"]))["status"] == "ended" and v["server_seed"],
            timeout_s=300,  # bounded, not timed: bots play a whole match on a busy machine
        )
        entry["doc"] = site.api("GET", f"/games/{entry['id']}/replay")
    return out


# -- the tampering ---------------------------------------------------------------------
def tampered_deal(doc: dict[str, Any]) -> int:
    """The deal swapped_card changes: the second, or the first where the match
    ended in one deal (a Hazari seat can reach the target on the first)."""
    return 1 if len(doc["deals"]) > 1 else 0


def swapped_card(doc: dict[str, Any]) -> dict[str, Any]:
    """The first two seats dealt to in the second deal (the first if there is only
    one) trade a card: seats 0 and 1 at a table of four, others where an Azi
    deal left a seat out (out of chips, or not in a replay)."""
    doc = copy.deepcopy(doc)
    deal = doc["deals"][tampered_deal(doc)]
    hands = deal["hands"]
    a, b = sorted((s for s, cards in hands.items() if cards), key=int)[:2]
    hands[a][0], hands[b][0] = hands[b][0], hands[a][0]
    return doc


def other_seed(doc: dict[str, Any]) -> dict[str, Any]:
    """Another server seed, with the commitment recomputed to match it (the server
    lying about both): the hands no longer follow."""
    doc = copy.deepcopy(doc)
    seed = bytes(range(32))
    doc["server_seed"] = seed.hex()
    doc["commitment"] = hashlib.sha256(seed).hexdigest()
    return doc


def other_seed_only(doc: dict[str, Any]) -> dict[str, Any]:
    doc = copy.deepcopy(doc)
    doc["server_seed"] = "ab" * 32
    return doc


def other_client_seed(doc: dict[str, Any]) -> dict[str, Any]:
    """A bot's seed replaced (a server choosing it after the commitment): it is no
    longer the one the committed server seed derives for that seat."""
    doc = copy.deepcopy(doc)
    assert doc["seats"][1]["seed_origin"] == "derived"
    doc["seats"][1]["client_seed"] = "chosen-by-the-house"
    return doc


def other_client_seed_said_a_players(doc: dict[str, Any]) -> dict[str, Any]:
    """The same, with the document claiming the player chose it: the hands no longer
    follow from the seeds."""
    doc = other_client_seed(doc)
    doc["seats"][1]["seed_origin"] = "player"
    return doc


def other_deal_number(doc: dict[str, Any]) -> dict[str, Any]:
    doc = copy.deepcopy(doc)
    doc["deals"][0]["deal"] = 1
    return doc


TAMPERING = {
    "swapped-card": (swapped_card, "hand"),
    # the seeds the server derived for its seats no longer follow from it either
    "other-server-seed": (other_seed, "derived-seed"),
    "other-seed-not-committed": (other_seed_only, "commitment"),
    "other-client-seed": (other_client_seed, "derived-seed"),
    "other-client-seed-said-a-players": (other_client_seed_said_a_players, "hand"),
    "other-deal-number": (other_deal_number, "deal-number"),
}

VERIFY = """async (docs) => {
  const { verifyReplay } = await import('/web/static/js/verifier.js');
  const out = [];
  for (const doc of docs) out.push(await verifyReplay(doc));
  return out;
}"""


@pytest.fixture(scope="module")
def lab(browser: Browser, site: Site) -> Iterator[Page]:
    """One page of the site, shared by the module's tests that call the verifier's
    module directly."""
    context = browser.new_context(base_url=site.url)
    errors: list[str] = []
    page = collect_errors(context.new_page(), errors)
    page.goto("/fairness")  # a page of the site whose policy lets it import the module
    yield page
    context.close()
    assert not errors, errors


def test_real_replays_verify_and_tampered_copies_fail(
    lab: Page, finished: dict[str, dict[str, Any]]
) -> None:
    docs, expected = [], []
    for game, entry in finished.items():
        docs.append(entry["doc"])
        expected.append((game, "real", "verified"))
        for name, (tamper, code) in TAMPERING.items():
            docs.append(tamper(entry["doc"]))
            expected.append((game, name, code))
    results = lab.evaluate(VERIFY, docs)
    for (game, name, code), result, doc in zip(expected, results, docs, strict=True):
        assert result["code"] == code, (game, name, result["code"], result["params"])
        assert result["ok"] is (code == "verified"), (game, name)
        if code == "verified":
            assert result["commitment"]["ok"] is True
            assert len(result["deals"]) == len(doc["deals"]) and all(
                d["ok"] for d in result["deals"]
            )
            # every seat's seed was derived from the committed seed (bots, and the
            # player who sent none), and re-derived in the browser
            assert [s["origin"] for s in result["seeds"]] == ["derived"] * len(doc["seats"])
            assert all(s["derivedOk"] for s in result["seeds"]), result["seeds"]
    swapped = results[1]  # the first game's swapped card: in its second deal, or its only one
    assert swapped["params"]["deal"] == tampered_deal(docs[0]) + 1  # from 1
    assert swapped["params"]["seat"] in (1, 2)
    assert swapped["params"]["name"] == f"Robo {swapped['params']['seat'] - 1}"


def fairness_vectors() -> list[dict[str, Any]]:
    text = (ROOT / "docs" / "fairness.md").read_text()
    table = text[text.index("<!-- vectors:begin -->") : text.index("<!-- vectors:end -->")]
    rows = []
    for line in table.splitlines():
        cells = [c.strip().strip("`") for c in line.strip().strip("|").split("|")]
        if len(cells) == 8 and re.fullmatch(r"[0-9a-f]{64}", cells[0]):
            rows.append(
                {
                    "seed": cells[0],
                    "game_id": cells[1],
                    "client_seeds": cells[2].split(),
                    "deal": int(cells[3]),
                    "size": int(cells[4]),
                    "first": cells[5],
                    "digest": cells[6],
                    "next": int(cells[7]),
                }
            )
    for row in rows:
        row["commitment"] = hashlib.sha256(bytes.fromhex(row["seed"])).hexdigest()
        assert row["commitment"] in text  # the document lists it
    return rows


def test_the_vectors_of_the_fairness_document(lab: Page) -> None:
    rows = fairness_vectors()
    assert len(rows) == 5
    got = lab.evaluate(
        """async (rows) => {
          const { vector } = await import('/web/static/js/verifier.js');
          return Promise.all(
            rows.map((r) => vector(r.seed, r.game_id, r.client_seeds, r.deal, r.size)),
          );
        }""",
        rows,
    )
    for row, out in zip(rows, got, strict=True):
        assert out == {
            "first": row["first"],
            "digest": row["digest"],
            "next": row["next"],
            "commitment": row["commitment"],
        }, row


# -- the replay viewer -----------------------------------------------------------------
@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_viewer_checks_by_itself(
    page: Page, site: Site, finished: dict[str, dict[str, Any]], game: str
) -> None:
    entry = finished[game]
    page.goto(f"/replay/{entry['id']}")
    own = page.locator("#browser-verify .check-verdict")
    expect(own).to_have_attribute("data-ok", "true")
    expect(own).to_contain_text("Verified in this browser")
    checks = page.locator("#browser-checks ul.checks li")
    expect(checks).to_have_count(1 + len(entry["doc"]["deals"]))
    expect(page.locator('#browser-checks li[data-check="commitment"]')).to_have_class("ok")
    expect(page.locator("#verify-badge")).to_have_class("badge ok")
    expect(page.locator("#verify-disagree")).to_be_hidden()
    if game == "murlan":
        site.shot(page, "replay-verified")


def test_a_dishonest_server_is_caught(
    page: Page, site: Site, finished: dict[str, dict[str, Any]]
) -> None:
    """The server serves a replay whose second deal it changed, and its own /verify
    still says verified: the page shows both, and names the deal and the seats."""
    entry = finished["hazari"]
    doctored = swapped_card(entry["doc"])
    deal = tampered_deal(entry["doc"])

    def serve(route: Route) -> None:
        route.fulfill(status=200, content_type="application/json", body=json.dumps(doctored))

    page.route(f"**/games/{entry['id']}/replay", serve)
    page.goto(f"/replay/{entry['id']}")
    own = page.locator("#browser-verify .check-verdict")
    expect(own).to_have_attribute("data-ok", "false")
    expect(own).to_have_attribute("data-code", "hand")
    expect(own).to_contain_text(f"in deal {deal + 1}")
    expect(own).to_contain_text(re.compile(r"Robo [01] \(seat [12]\)"))
    bad = page.locator("#browser-checks ul.checks li.bad")
    expect(bad).to_have_count(1)
    expect(bad).to_have_attribute("data-deal", str(deal))
    expect(bad).to_have_attribute("data-seats", re.compile(r"^(0 1|1 0)$"))
    expect(bad).to_contain_text("Robo 0 (seat 1)")
    expect(bad).to_contain_text("Robo 1 (seat 2)")
    # the server's word, separately: it says verified, and the page says they disagree
    expect(page.locator("#verify-badge")).to_have_class("badge ok")
    expect(page.locator("#verify-disagree")).to_be_visible()
    expect(page.locator("#verify-disagree")).to_contain_text("The two checks disagree")
    site.shot(page, "replay-tampered")
    page.set_viewport_size({"width": 390, "height": 844})
    site.shot(page, "replay-tampered-phone")


# -- the offline page ------------------------------------------------------------------
def test_the_offline_page_is_the_file_in_docs(site: Site) -> None:
    served = httpx.get(site.url + "/verifier", timeout=10)
    assert served.status_code == 200
    text = OFFLINE.read_text(encoding="utf-8")
    assert text == build(), "docs/verifier.html is stale: run python -m service.web.offline"
    assert served.content == OFFLINE.read_bytes()
    policy = served.headers["Content-Security-Policy"]
    assert policy.startswith("default-src 'none'") and "connect-src" not in policy
    # one inline script and one inline style sheet; nothing loaded from anywhere
    assert not re.search(r"<(script|link|img|iframe)[^>]+(src|href)=\"(?!data:)", text)
    assert text.count("<script") == 1 and text.count("</script") == 1


def record_requests(page: Page) -> list[str]:
    seen: list[str] = []
    page.on("request", lambda request: seen.append(request.url))
    return seen


def test_offline_from_a_file_with_no_request(
    browser: Browser, finished: dict[str, dict[str, Any]], tmp_path: Path
) -> None:
    """The saved file, opened with no server: a replay chosen from disk is checked,
    and nothing is requested (not even when the page's script tries)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page = collect_errors(context.new_page(), errors)
    seen = record_requests(page)
    saved = tmp_path / "verifier.html"
    saved.write_bytes(OFFLINE.read_bytes())
    replay = tmp_path / "murlan.json"
    replay.write_text(json.dumps(finished["murlan"]["doc"]))
    page.goto(saved.as_uri())
    expect(page.locator("body[data-ready='1']")).to_have_count(1)
    page.set_input_files("#file", str(replay))
    verdict = page.locator("#result .check-verdict")
    expect(verdict).to_have_attribute("data-ok", "true")
    expect(page.locator("#source")).to_contain_text("murlan.json")
    # the policy refuses any request the page might make
    refused = page.evaluate(
        """async () => { try { await fetch('https://example.org/'); return false; }
                         catch { return true; } }"""
    )
    assert refused
    assert seen == [saved.as_uri()], seen
    context.close()
    assert not [e for e in errors if "Content Security Policy" not in e], errors


@pytest.mark.parametrize(
    ("lang", "verified"),
    [
        ("en", "Verified in this browser"),
        ("ru", "Проверено в этом браузере"),
        ("hu", "Ebben a böngészőben ellenőrizve"),
        ("bg", "Проверено в този браузър"),
        ("sq", "Verifikuar në këtë shfletues"),
        ("ne", "यो ब्राउजरमा प्रमाणित"),
    ],
)
def test_the_offline_page_in_each_language(
    page: Page, site: Site, finished: dict[str, dict[str, Any]], lang: str, verified: str
) -> None:
    seen = record_requests(page)
    page.goto(f"/verifier?lang={lang}")
    expect(page.locator("html")).to_have_attribute("lang", lang)
    page.fill("#text", json.dumps(finished["azi"]["doc"]))
    page.click("#check")
    expect(page.locator("#result .check-verdict")).to_contain_text(verified)
    page.fill("#text", json.dumps(other_client_seed(finished["azi"]["doc"])))
    page.click("#check")
    expect(page.locator("#result .check-verdict")).to_have_attribute("data-code", "derived-seed")
    if lang in ("en", "ru"):
        site.shot(page, f"verifier-offline-{lang}")
        page.set_viewport_size({"width": 390, "height": 844})
        site.shot(page, f"verifier-offline-{lang}-phone")
    assert seen == [f"{site.url}/verifier?lang={lang}"], seen


def test_a_truncated_file_gets_a_clear_message(
    page: Page, finished: dict[str, dict[str, Any]]
) -> None:
    page.goto("/verifier")
    page.fill("#text", json.dumps(finished["hazari"]["doc"])[:3000])
    page.click("#check")
    verdict = page.locator("#result .check-verdict")
    expect(verdict).to_have_attribute("data-code", "not-json")
    expect(verdict).to_contain_text("not valid JSON")
    page.fill("#text", json.dumps({**finished["hazari"]["doc"], "server_seed": None}))
    page.click("#check")
    expect(verdict).to_contain_text("Not verifiable yet")


# -- hostile documents -------------------------------------------------------------------
def places(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out.extend(places(v, (*prefix, k)))
    elif isinstance(value, list):
        for i, v in enumerate(value[:4]):
            out.extend(places(v, (*prefix, i)))
    return out


JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**60), max_value=2**60),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
    st.lists(st.integers(min_value=-5, max_value=60), max_size=4),
    st.dictionaries(st.sampled_from(["0", "1", "x", "__proto__"]), st.integers(), max_size=2),
)

HOSTILE = """async (texts) => {
  const { verifyText } = await import('/web/static/js/verifier.js');
  const out = [];
  for (const text of texts) {
    const started = performance.now();
    const result = await verifyText(text);
    out.push({ code: result.code, ok: result.ok, ms: performance.now() - started });
  }
  return out;
}"""


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_mutated_documents_get_a_message(
    lab: Page, finished: dict[str, dict[str, Any]], data: st.DataObject
) -> None:
    doc = finished[data.draw(st.sampled_from(sorted(finished)))]["doc"]
    texts = []
    for _ in range(5):
        path = data.draw(st.sampled_from(places(doc)))
        mutated = copy.deepcopy(doc)
        junk = data.draw(JUNK)
        if not path:
            mutated = junk
        else:
            parent = mutated
            for part in path[:-1]:
                parent = parent[part]
            if data.draw(st.booleans()):
                del parent[path[-1]]
            else:
                parent[path[-1]] = junk
        text = json.dumps(mutated)
        cut = data.draw(st.sampled_from([len(text), len(text) // 2, 1, 0]))
        texts.append(text[:cut])
    results = lab.evaluate(HOSTILE, texts)
    en = json.loads((ROOT / "service/web/static/i18n/en/verifier.json").read_text())
    for text, result in zip(texts, results, strict=True):
        code = result["code"]
        if result["ok"]:
            assert code == "verified"
        else:  # every failure has its sentence in the catalogs
            assert f"verifier.failed.{code}" in en or f"verifier.problem.{code}" in en, (
                code,
                text[:200],
            )


def test_a_huge_document_does_not_hang_the_page(page: Page) -> None:
    page.goto("/verifier")
    seats = [{"seat": i, "name": "x", "client_seed": "s"} for i in range(4)]
    deal = {"deal": 0, "dealer": 0, "deck_size": 52, "deal_order": [0], "hands": {"0": ["2C"]}}
    doc = {
        "format": "cardroom-replay-v1",
        "game_id": "g",
        "commitment": hashlib.sha256(b"\0" * 32).hexdigest(),
        "server_seed": "00" * 32,
        "seats": seats,
        "deals": [deal] * 6000,
    }
    page.fill("#text", json.dumps(doc))
    page.click("#check")
    verdict = page.locator("#result .check-verdict")
    expect(verdict).to_have_attribute("data-code", "field")
    expect(verdict).to_contain_text("“deals”")


# -- my games ----------------------------------------------------------------------------
def holding(context: Any, seats: dict[str, dict[str, Any]], lang: str | None = None) -> None:
    """The browser holds these seats (as the seat links opened in it leave them)."""
    script = "".join(
        f"localStorage.setItem({json.dumps('cardroom.seat.' + gid)}, {json.dumps(json.dumps(s))});"
        for gid, s in seats.items()
    )
    if lang:
        script += f"localStorage.setItem('cardroom.lang', '{lang}');"
    context.add_init_script(script)


def test_my_games(browser: Browser, site: Site, finished: dict[str, dict[str, Any]]) -> None:
    waiting = site.api("POST", "/games", json={"game": "murlan", "options": {}})["game_id"]
    mine = site.api("POST", f"/games/{waiting}/seats", json={"name": "Me"})
    seats = {
        e["id"]: {"token": e["seat"]["token"], "seat": 0, "name": "Robo 0"}
        for e in finished.values()
    }
    seats[waiting] = {"token": mine["token"], "seat": 0, "name": "Me"}
    seats["nosuchgame000000"] = {"token": "x" * 32, "seat": 0, "name": "Me"}
    doctored = json.dumps(swapped_card(finished["hazari"]["doc"]))
    for lang in ("en", "hu"):
        context = browser.new_context(base_url=site.url, viewport={"width": 1280, "height": 900})
        holding(context, seats, lang)
        errors: list[str] = []
        page = collect_errors(context.new_page(), errors)
        page.route(
            f"**/games/{finished['hazari']['id']}/replay",
            lambda route: route.fulfill(status=200, content_type="application/json", body=doctored),
        )
        page.goto("/my-games")
        rows = page.locator("#games > li")
        expect(rows).to_have_count(5)
        expect(page.locator("#empty")).to_be_hidden()
        # the game still seating comes first, with no button to verify
        expect(rows.first).to_have_attribute("data-status", "seating")
        expect(rows.first.locator("button.verify")).to_have_count(0)
        expect(page.locator('#games > li[data-status="ended"]')).to_have_count(3)
        for game, entry in finished.items():
            row = page.locator(f'#games > li[data-game="{entry["id"]}"]')
            expect(row.locator(".result")).to_contain_text("Robo")
            row.locator("button.verify").click()
            verdict = row.locator(".check-verdict")
            expect(verdict).to_have_attribute("data-ok", "false" if game == "hazari" else "true")
        expect(
            page.locator(f'#games > li[data-game="{finished["hazari"]["id"]}"] .check-verdict')
        ).to_have_attribute("data-code", "hand")
        site.shot(page, f"my-games-{lang}")
        page.set_viewport_size({"width": 390, "height": 844})
        site.shot(page, f"my-games-{lang}-phone")
        context.close()
        assert not errors, errors


def test_my_games_when_there_are_none(page: Page) -> None:
    page.goto("/my-games")
    expect(page.locator("#empty")).to_be_visible()
    expect(page.locator("#games > li")).to_have_count(0)


@pytest.mark.parametrize("lang", ["ru", "hu", "ne"])
def test_no_english_on_the_new_pages(
    browser: Browser, site: Site, finished: dict[str, dict[str, Any]], lang: str
) -> None:
    """My games and the offline verifier, in another language, after a check that
    fails and one that passes: no text of the English catalogs on screen."""
    from .i18n_support import english_found, screen_text

    entry = finished["murlan"]
    context = browser.new_context(base_url=site.url, viewport={"width": 1280, "height": 900})
    holding(
        context, {entry["id"]: {"token": entry["seat"]["token"], "seat": 0, "name": "Robo 0"}}, lang
    )
    page = context.new_page()
    allowed = {f"Robo {n}" for n in range(4)} | {e["id"] for e in finished.values()}
    page.goto("/my-games")
    page.locator("button.verify").click()
    expect(page.locator(".check-verdict")).to_have_attribute("data-ok", "true")
    page.locator("details.seeds > summary").click()
    assert english_found(screen_text(page), lang, allowed) == []
    page.goto("/verifier")
    page.fill("#text", json.dumps(swapped_card(entry["doc"])))
    page.click("#check")
    expect(page.locator("#result .check-verdict")).to_have_attribute("data-ok", "false")
    page.locator("details.seeds > summary").click()
    assert english_found(screen_text(page), lang, allowed) == []
    context.close()
