"""Cards as the pages print them: a Murlan straight reads in the order of its run."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

pytestmark = pytest.mark.browser

RUN_ORDER = """async (cases) => {
  const { runOrder } = await import('/web/static/js/cards.js');
  return cases.map(([cards, kind]) => runOrder(cards, kind));
}"""


def test_a_straight_reads_in_the_order_of_its_run(page: Page) -> None:
    page.goto("/rules")
    cases = [
        (["3S", "4H", "5C", "6C", "2H"], "straight"),  # 2 is low: 2-3-4-5-6
        (["2D", "3S", "4H", "5C", "AS"], "straight"),  # the ace low: A-2-3-4-5
        (["AS", "TD", "JC", "QH", "KS"], "straight"),  # the ace high: T-J-Q-K-A
        (["9S", "7H", "8C", "TD", "6S", "JC"], "straight"),
        (["KS", "KH"], "pair"),  # other combinations keep their order
    ]
    assert page.evaluate(RUN_ORDER, cases) == [
        ["2H", "3S", "4H", "5C", "6C"],
        ["AS", "2D", "3S", "4H", "5C"],
        ["TD", "JC", "QH", "KS", "AS"],
        ["6S", "7H", "8C", "9S", "TD", "JC"],
        ["KS", "KH"],
    ]


HAND_ORDER = """async (cases) => {
  const { handOrder } = await import('/web/static/js/cards.js');
  return cases.map(([game, cards]) => handOrder(game, cards));
}"""


def test_a_replayed_hand_reads_as_the_table_sorts_it(page: Page) -> None:
    page.goto("/rules")
    cases = [
        ("murlan", ["2S", "RJ", "3H", "AC", "3C", "BJ", "TD"]),  # 3 … A 2, the jokers last
        ("hazari", ["3S", "AH", "KC", "AC", "9D"]),  # the highest rank first
        ("azi", ["AS", "7H", "9C", "KH", "6C"]),  # by suit, low to high
        ("azi", ["??", "7H"]),  # a hidden card stays last
    ]
    assert page.evaluate(HAND_ORDER, cases) == [
        ["3C", "3H", "TD", "AC", "2S", "BJ", "RJ"],
        ["AC", "AH", "KC", "9D", "3S"],
        ["6C", "9C", "7H", "KH", "AS"],
        ["7H", "??"],
    ]


JOKER_LINES = """(word) => {
  const panel = document.createElement('div');
  panel.className = 'panel';
  for (const size of ['', 'small']) {
    const card = document.createElement('span');
    card.className = `card black joker ${size}`;
    card.innerHTML = '<span class="rank"></span><span class="suit">★</span>';
    card.querySelector('.rank').textContent = word;
    panel.append(card);
  }
  document.body.append(panel);
  const lines = [...panel.querySelectorAll('.rank')].map((rank) => {
    const range = document.createRange();
    range.selectNodeContents(rank);
    return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
  });
  panel.remove();
  return lines;
}"""


def test_a_jokers_word_stays_whole_on_its_card(page: Page) -> None:
    page.goto("/rules")
    for word in ("Джокер", "Xhoker", "जोकर", "Joker"):
        assert page.evaluate(JOKER_LINES, word) == [1, 1], word
