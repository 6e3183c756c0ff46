"""Every message of every catalog compiles with the bundled IntlMessageFormat in its own
language and formats with sample parameters, in the browser."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Page

from .helpers import Site
from .i18n_support import LANGUAGES, catalog

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# Each argument gets a value of the kind its use needs: numbers for plural/number/selectordinal,
# a word for select (its `other` branch), text for the rest. Formats run for several counts so
# that every plural category of the language is reached.
FORMAT_ALL = r"""
async ([lang, messages]) => {
  const { IntlMessageFormat } = await import('/web/static/vendor/intl-messageformat.js');
  const failures = [];
  const locale = lang === 'ne' ? 'ne-u-nu-latn' : lang;
  for (const [key, message] of Object.entries(messages)) {
    try {
      const format = new IntlMessageFormat(message, locale);
      const args = {};
      const walk = (elements) => {
        for (const el of elements) {
          // intl-messageformat's AST: 1 argument, 2 number, 3 date, 4 time, 5 select,
          // 6 plural, 7 pound.
          if (el.value === undefined) continue;
          if (el.type === 2 || el.type === 6) args[el.value] = 0;
          else if (el.type === 5) args[el.value] ??= 'other';
          else if (el.type === 3 || el.type === 4) args[el.value] = new Date(0);
          else if (el.type === 1) args[el.value] ??= 'Ana';
          for (const option of Object.values(el.options || {})) walk(option.value);
        }
      };
      walk(format.getAst());
      const numeric = Object.keys(args).filter((k) => args[k] === 0);
      for (const n of [0, 1, 2, 3, 5, 11, 21, 22, 101, 1.5]) {
        for (const k of numeric) args[k] = n;
        const out = format.format(args);
        if (typeof out !== 'string' || !out.trim()) throw new Error(`empty for ${n}`);
        if (/\{|\}/.test(out)) throw new Error(`a brace left in "${out}"`);
      }
    } catch (error) {
      failures.push(`${key}: ${error.message}`);
    }
  }
  return failures;
}
"""


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_message_compiles_and_formats(page: Page, site: Site, lang: str) -> None:
    page.goto("/fairness")
    messages = catalog(lang)
    assert messages
    failures = page.evaluate(FORMAT_ALL, [lang, json.loads(json.dumps(messages))])
    assert not failures, f"{lang}: {failures}"
