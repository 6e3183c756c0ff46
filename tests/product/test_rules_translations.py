"""Translations of the rules pages say what the English page says, and every
language has the rules for players.

For every docs/rules/<lang>/<game>.md (the engines' reference) the English
docs/rules/<game>.md is the authority, and likewise for
docs/play/<lang>/<game>.md (the rules for players) and docs/play/<game>.md. A
translation keeps, compared with it: the multiset of numbers (digit sequences)
outside code, the set of code spans (inline spans and fenced blocks,
verbatim), the number of headings at each level, and the number of rows of
each table, in order. Its first line after the title links to the English
page. The rules for players have no code at all.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

from service.web.rules import GAMES, LANGUAGES

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "docs" / "rules"
PLAY = ROOT / "docs" / "play"
"""The rules for players (``docs/play``) and the engines' reference (``docs/rules``)."""
TRANSLATIONS = sorted(p for d in (RULES, PLAY) for p in d.glob("*/*.md"))

FENCE = re.compile(r"^```[^\n]*\n.*?^```[ \t]*$", re.MULTILINE | re.DOTALL)
INLINE_CODE = re.compile(r"(`+)(.+?)\1", re.DOTALL)
NUMBER = re.compile(r"[0-9]+")
HEADING = re.compile(r"^(#{1,6})\s")


@dataclass(frozen=True)
class Shape:
    """What a rules page must share with its translations."""

    numbers: Counter[str]
    code: frozenset[str]
    headings: Counter[int]
    tables: tuple[int, ...]


def shape(text: str) -> Shape:
    fences = FENCE.findall(text)
    prose = FENCE.sub("\n", text)
    spans = [m.group(2).strip() for m in INLINE_CODE.finditer(prose)]
    prose = INLINE_CODE.sub(" ", prose)
    headings: Counter[int] = Counter()
    tables: list[int] = []
    rows = 0
    for line in prose.splitlines():
        m = HEADING.match(line)
        if m:
            headings[len(m.group(1))] += 1
        stripped = line.strip()
        if stripped.startswith("|"):
            if not re.fullmatch(r"\|[\s:|-]+\|?", stripped):  # not the |---| separator
                rows += 1
        elif rows:
            tables.append(rows)
            rows = 0
    if rows:
        tables.append(rows)
    return Shape(
        numbers=Counter(NUMBER.findall(prose)),
        code=frozenset(spans) | frozenset(fences),
        headings=headings,
        tables=tuple(tables),
    )


def differences(english: str, translation: str) -> list[str]:
    """Everything in which the translation's shape differs from the English one."""
    en, tr = shape(english), shape(translation)
    problems = []
    if en.numbers != tr.numbers:
        missing = dict(en.numbers - tr.numbers)
        extra = dict(tr.numbers - en.numbers)
        problems.append(f"numbers outside code: missing {missing}, extra {extra}")
    if en.code != tr.code:
        problems.append(
            f"code spans: missing {sorted(en.code - tr.code)}, extra {sorted(tr.code - en.code)}"
        )
    if en.headings != tr.headings:
        problems.append(f"headings per level: {dict(en.headings)} != {dict(tr.headings)}")
    if en.tables != tr.tables:
        problems.append(f"table rows: {en.tables} != {tr.tables}")
    return problems


def test_there_are_translations() -> None:
    assert TRANSLATIONS, "no docs/rules/<lang>/<game>.md found"


def ident(path: Path) -> str:
    return str(path.relative_to(ROOT / "docs"))


@pytest.mark.parametrize("path", TRANSLATIONS, ids=ident)
def test_translation_matches_english(path: Path) -> None:
    english = path.parent.parent / path.name
    assert english.is_file(), f"{path} translates {english}, which does not exist"
    problems = differences(english.read_text(encoding="utf-8"), path.read_text(encoding="utf-8"))
    assert not problems, f"{path.relative_to(ROOT)}:\n" + "\n".join(problems)


@pytest.mark.parametrize("path", TRANSLATIONS, ids=ident)
def test_translation_links_to_english(path: Path) -> None:
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert lines[0].startswith("# "), "the page starts with its title"
    assert f"](../{path.name})" in lines[1], "the line under the title links to the English page"


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("lang", LANGUAGES)
def test_players_read_every_game_in_every_language_without_code(lang: str, game: str) -> None:
    path = PLAY / f"{game}.md" if lang == "en" else PLAY / lang / f"{game}.md"
    assert path.is_file(), f"no rules for players at {ident(path)}"
    text = path.read_text(encoding="utf-8")
    assert "`" not in text, f"{ident(path)}: code in the rules for players"
    assert not re.search(r"<[a-zA-Z!/]", text), f"{ident(path)}: HTML in the rules for players"


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("lang", ["ru", "bg", "ne"])
def test_players_text_in_another_script_has_no_english_word(lang: str, game: str) -> None:
    """Russian, Bulgarian and Nepali are not written in Latin letters: a Latin word
    there is English left behind (card letters are single, as on the cards)."""
    text = (PLAY / lang / f"{game}.md").read_text(encoding="utf-8")
    text = re.sub(r"\]\([^)]*\)", "]", text)  # link targets
    words = set(re.findall(r"[A-Za-z]{2,}", text)) - {"cardroom"}
    assert not words, f"docs/play/{lang}/{game}.md: {sorted(words)}"


ENGLISH_SAMPLE = """# Game

## Cards

Four players, 52 cards (`deck: 52`), 1,000 points.

| option | default |
|---|---|
| `target` | 1000 |

```json
{"action": "play"}
```
"""


def test_checker_accepts_a_faithful_translation() -> None:
    translation = """# Spiel

[English](../game.md) gilt.

## Karten

Vier Spieler, 52 Karten (`deck: 52`), 1.000 Punkte.

| Option | Vorgabe |
|---|---|
| `target` | 1000 |

```json
{"action": "play"}
```
"""
    assert differences(ENGLISH_SAMPLE, translation) == []


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (("52 cards", "53 cards"), "numbers outside code"),
        (("Four players", "4 players"), "numbers outside code"),
        (("`deck: 52`", "`deck: 53`"), "code spans"),
        (('"play"', '"pass"'), "code spans"),
        (("## Cards", "### Cards"), "headings per level"),
        (("| `target` | 1000 |\n", "| `target` | 1000 |\n| `other` | 1000 |\n"), "table rows"),
    ],
)
def test_checker_finds_a_change(change: tuple[str, str], problem: str) -> None:
    old, new = change
    changed = ENGLISH_SAMPLE.replace(old, new)
    assert changed != ENGLISH_SAMPLE
    found = differences(ENGLISH_SAMPLE, changed)
    assert any(p.startswith(problem) for p in found), found


def test_checker_finds_the_real_pages_different() -> None:
    hazari = (RULES / "hazari.md").read_text(encoding="utf-8")
    murlan = (RULES / "murlan.md").read_text(encoding="utf-8")
    assert differences(hazari, hazari) == []
    assert len(differences(hazari, murlan)) == 4
