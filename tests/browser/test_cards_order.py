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
