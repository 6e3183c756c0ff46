"""What the translation tests share: the catalogs read from disk, the English texts a page in
another language must not show, and a scan of what a page shows for them."""

from __future__ import annotations

import json
import re
from fnmatch import fnmatch
from functools import cache
from pathlib import Path

from playwright.sync_api import Page

I18N = Path(__file__).resolve().parents[2] / "service" / "web" / "static" / "i18n"
LANGUAGES = ("en", "ru", "hu", "bg", "sq", "ne")

# Messages a translation may leave exactly as in English (by key, fnmatch patterns): words
# that are the same in the player's language, so a page in it legitimately shows them.
# - the brand "cardroom" (a name) and titles that are only it and a placeholder;
# - the games' own names ("Murlan", "Azi", "Hazari Lite"), written so in Latin-script languages;
# - the letters on card faces (J, Q, K, A): card symbols, not words;
# - "bot" (lobby/table tags, "Bot {n}"), which Hungarian and Albanian use as is (their glossaries,
#   docs/glossary/<lang>.json, list the English words their players use, with the reason);
# - "Joker" in Hungarian (the card is "joker" there too), "normal" in Albanian (the same word).
# Anything else a translation leaves in English counts as English on the page.
SAME_AS_ENGLISH = (
    "common.brand",
    "table.docTitle",
    "common.game.*",
    "common.rankShort.*",
    "lobby.botName",
    "lobby.tagBot",
    "table.tag.bot",
    "common.jokerShort",
    "table.pace.normal",
)

MIN_LETTERS = 4
"""A fragment of a message with placeholders counts only from this many letters: shorter
ones ("to", "of", "and") are words of other Latin-script languages too, or parts of names."""

LETTER = re.compile(r"[^\W\d_]", re.UNICODE)


def same_allowed(key: str) -> bool:
    return any(fnmatch(key, pattern) for pattern in SAME_AS_ENGLISH)


def catalog(lang: str) -> dict[str, str]:
    """Every message of one language, all areas together (key -> ICU message)."""
    return dict(_catalog(lang))


@cache
def _catalog(lang: str) -> dict[str, str]:
    """The catalogs are read once per test process (the scans of every page read them)."""
    out: dict[str, str] = {}
    for path in sorted((I18N / lang).glob("*.json")):
        out.update(json.loads(path.read_text(encoding="utf-8")))
    return out


def literal_runs(message: str) -> tuple[list[str], bool]:
    """The literal text of an ICU message, cut at every placeholder and at `#` inside plural
    branches (a plural's branches are text again); and whether it had any placeholder."""
    runs: list[str] = []
    stack = ["text"]
    current = ""
    placeholders = False
    i = 0
    while i < len(message):
        ch = message[i]
        top = stack[-1]
        if ch == "'" and i + 1 < len(message) and message[i + 1] in "{}'#":
            # ICU quoting: '' is an apostrophe, '{' a literal brace.
            if top == "text":
                current += message[i + 1]
            i += 2
            continue
        if ch == "{":
            if top == "text":
                runs.append(current)
                current = ""
                placeholders = True
            stack.append("arg" if top == "text" else "text")
        elif ch == "}":
            stack.pop()
            if top == "text":
                runs.append(current)
                current = ""
        elif top == "text":
            if ch == "#" and len(stack) > 1:
                runs.append(current)
                current = ""
                placeholders = True
            else:
                current += ch
        i += 1
    runs.append(current)
    return [r.strip() for r in runs if r.strip()], placeholders


def english_texts(lang: str) -> dict[str, str]:
    """English text -> a key it comes from, for every key `lang` translates (keys the
    language's catalog lacks fall back to English on purpose, while they are translated)."""
    return dict(_english_texts(lang))


@cache
def _english_texts(lang: str) -> dict[str, str]:
    en = catalog("en")
    own = catalog(lang)
    # The English a page shows on purpose: the messages the language does not have yet.
    fallback = " | ".join(r for k, m in en.items() if k not in own for r in literal_runs(m)[0])
    # The language's own words: its messages that are translated or allowed to stay as in
    # English ("pair" is a Hazari combination in Hungarian, while Murlan's "pair" is "pár").
    kept = " | ".join(
        r for k, m in own.items() if m != en.get(k) or same_allowed(k) for r in literal_runs(m)[0]
    )
    out: dict[str, str] = {}
    for key, message in en.items():
        if key not in own:
            continue
        if own[key] == message and same_allowed(key):
            continue
        runs, placeholders = literal_runs(message)
        for run in runs:
            run = run.strip(" .,:;!?—–-()[]\"'…·●✓")
            letters = len(LETTER.findall(run))
            if letters < 2:
                continue  # a card's letter (A, K) or a symbol: card faces are allowed
            if re.search(word(run), fallback) or re.search(word(run), kept):
                continue  # part of a message shown in English on purpose, or the language's own
            if placeholders and letters < MIN_LETTERS:
                continue
            out.setdefault(run, key)
    return out


@cache
def _english_patterns(lang: str) -> tuple[tuple[str, str, re.Pattern[str]], ...]:
    """:func:`english_texts` with each text's pattern compiled once per test process
    (there are more of them than ``re``'s own cache keeps)."""
    return tuple((e, key, re.compile(word(e))) for e, key in _english_texts(lang).items())


def word(text: str) -> str:
    """A pattern finding `text` as whole words (no letter just before or after it)."""
    return r"(?<![^\W\d_])" + re.escape(text) + r"(?![^\W\d_])"


def english_found(text: str, lang: str, allowed: set[str] = frozenset()) -> list[str]:
    """The English texts of the catalogs found in `text` as whole words ("key: text")."""
    found = []
    for english, key, pattern in _english_patterns(lang):
        # the plain substring first: most texts are not on the page at all, and it is
        # far quicker than the pattern's look-arounds at every position
        match = pattern.search(text) if english in text else None
        if match:
            if any(english in name for name in allowed):
                continue
            around = text[max(0, match.start() - 30) : match.end() + 30].replace("\n", " | ")
            found.append(f"{key}: {english!r} in …{around}…")
    return sorted(found)


SCREEN_TEXT = """() => [document.body.innerText,
  ...[...document.querySelectorAll('button, .card, [role=button], select, input')]
    .flatMap((n) => [n.getAttribute('aria-label'), n.getAttribute('title'),
                     n.getAttribute('placeholder')])
    .filter(Boolean),
  document.title].join('\\n')"""


def screen_text(page: Page) -> str:
    """The text a player reads, with the labels and titles of buttons and cards."""
    return str(page.evaluate(SCREEN_TEXT))
