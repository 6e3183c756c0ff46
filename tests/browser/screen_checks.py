"""Checks of what a page looks like, shared by the browser tests: the accessibility rules of
axe-core (vendored, contrast among them) and the geometry of the targets a player presses."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page

AXE = "/web/static/vendor/axe.min.js"
# WCAG 2 A and AA: text contrast (4.5:1), names of controls, labels, structure.
AXE_RUN = """async () => {
  const result = await window.axe.run(document, {
    runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
    resultTypes: ['violations'],
    // A card's face is its rank and suit symbol ("3♦"); its name spells them out ("three
    // of diamonds"), which is what a screen reader should say: not a mismatch.
    rules: { 'label-content-name-mismatch': { enabled: false } },
  });
  return result.violations.map((v) => ({
    id: v.id,
    help: v.help,
    nodes: v.nodes.slice(0, 4).map((n) => `${n.target.join(' ')}: ${n.failureSummary}`),
  }));
}"""


def axe_violations(page: Page) -> list[dict[str, Any]]:
    """axe-core's WCAG 2 A/AA violations of the page as it is now (loaded from the site's
    own vendor directory, so the page's Content-Security-Policy lets it run)."""
    if not page.evaluate("() => Boolean(window.axe)"):
        page.add_script_tag(url=AXE)
    return list(page.evaluate(AXE_RUN))


def assert_accessible(page: Page, state: str) -> None:
    found = axe_violations(page)
    assert not found, f"{state}: " + "; ".join(f"{v['id']} {v['nodes']}" for v in found)


# The targets a finger presses: buttons, fields, lists, folds and links that are not words
# inside a sentence. Each is measured as drawn (a raised card included); a check box or a
# radio button inside its label is pressed anywhere on the label, which is its target.
TARGETS = """() => {
  const shown = (el) => {
    const r = el.getBoundingClientRect();
    // checkVisibility: not inside a closed fold (whose content still has a box), not hidden
    return r.width > 0 && r.height > 0 && el.checkVisibility({ visibilityProperty: true });
  };
  const inText = (el) => el.tagName === 'A' && getComputedStyle(el).display === 'inline';
  const all = [...document.querySelectorAll('button, a[href], select, input, summary, textarea')]
    .filter((el) => shown(el) && !inText(el));
  const name = (el) => {
    const bits = [el.tagName.toLowerCase()];
    if (el.id) bits.push('#' + el.id);
    if (el.dataset.card) bits.push(`[card=${el.dataset.card}]`);
    if (el.dataset.action) bits.push(`[action=${el.dataset.action}]`);
    return bits.join('') + ' ' + (el.textContent || '').trim().slice(0, 24);
  };
  const hit = (el) =>
    (el.matches('input[type=checkbox], input[type=radio]') && el.closest('label')) || el;
  const boxes = all.map((el) => ({ el, r: hit(el).getBoundingClientRect() }));
  const small = boxes
    .filter(({ r }) => r.width < 43.5 || r.height < 43.5)
    .map(({ el, r }) => `${name(el)} ${Math.round(r.width)}x${Math.round(r.height)}`);
  const overlaps = [];
  for (let i = 0; i < boxes.length; i += 1)
    for (let j = i + 1; j < boxes.length; j += 1) {
      const a = boxes[i], b = boxes[j];
      if (a.el.contains(b.el) || b.el.contains(a.el)) continue;
      const w = Math.min(a.r.right, b.r.right) - Math.max(a.r.left, b.r.left);
      const h = Math.min(a.r.bottom, b.r.bottom) - Math.max(a.r.top, b.r.top);
      if (w > 1 && h > 1) overlaps.push(`${name(a.el)} / ${name(b.el)}`);
    }
  return { small, overlaps, count: boxes.length };
}"""


def targets(page: Page) -> dict[str, Any]:
    """The targets on the page: those under 44 by 44 px and the pairs that overlap."""
    return dict(page.evaluate(TARGETS))


def in_view(page: Page, selector: str) -> bool:
    """Whether every element ``selector`` finds (at least one) is wholly on the screen."""
    return bool(
        page.evaluate(
            """(selector) => {
              const all = [...document.querySelectorAll(selector)]
                .filter((el) => el.getClientRects().length);
              return all.length > 0 && all.every((el) => {
                const r = el.getBoundingClientRect();
                return r.top >= -1 && r.left >= -1 && r.bottom <= innerHeight + 1
                  && r.right <= innerWidth + 1;
              });
            }""",
            selector,
        )
    )
