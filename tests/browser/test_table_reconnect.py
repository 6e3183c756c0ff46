"""A table that loses its connection catches up when it is back: a hand that ended
meanwhile still gets its end-of-hand panel."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from .helpers import Site, create_from_lobby, keep_pace, seat_of, wait_for
from .table_support import events_of

pytestmark = pytest.mark.browser

CUT_OFF = """(() => {
  // The page's live stream, as a flaky network would treat it: window.__cut() drops
  // the open stream and holds the page's next tries until window.__restore().
  const fetchNow = window.fetch.bind(window);
  const open = new Set();
  let back = null;
  let held = Promise.resolve();
  window.__cut = () => {
    held = new Promise((resolve) => { back = resolve; });
    for (const c of open) c.abort(new DOMException('connection lost', 'NetworkError'));
    open.clear();
  };
  window.__restore = () => { if (back) back(); };
  window.fetch = async (input, init = {}) => {
    const url = String(input instanceof Request ? input.url : input);
    if (!url.includes('/events')) return fetchNow(input, init);
    await held;
    const c = new AbortController();
    if (init.signal) init.signal.addEventListener('abort', () => c.abort(init.signal.reason));
    open.add(c);
    return fetchNow(input, { ...init, signal: c.signal });
  };
})();"""


def test_a_pot_settled_while_offline_is_summed_up_on_return(page: Page, site: Site) -> None:
    keep_pace(page)
    page.add_init_script(CUT_OFF)
    game_id = create_from_lobby(page, "azi", "Olga", {"seats": "3", "buy_in": "5000"})
    token = seat_of(page, game_id)["token"]
    expect(page.locator("#conn")).to_have_text("live")

    def my_turn() -> Any:
        view = site.view(game_id, token)
        return view if {m["action"] for m in view["legal_moves"]} & {"fold"} else None

    view = wait_for("a bidding turn", my_turn, timeout_s=30)
    expect(page.locator("#meta")).to_have_attribute("data-version", str(view["version"]))
    page.evaluate("window.__cut()")
    expect(page.locator("#conn")).not_to_have_text("live")
    fold = next(m for m in view["legal_moves"] if m["action"] == "fold")
    site.api("POST", f"/games/{game_id}/moves", token, json={"move": fold})
    # The bots play the hand out while the table is away.
    wait_for(
        "the pot settled",
        lambda: any(e["type"] == "PotSettled" for e in events_of(site, game_id, token)),
        timeout_s=30,
    )
    page.evaluate("window.__restore()")
    expect(page.locator("#conn")).to_have_text("live", timeout=20_000)
    panel = page.locator('#summary[data-kind="PotSettled"]')
    expect(panel).to_be_visible()
    expect(panel).to_contain_text("Olga")
    expect(page.locator("#log")).to_contain_text("from the pot of")
    site.shot(page, "table-reconnected-summary")
