"""Every relative link in the docs (and the README) leads to a file of the
repository, and every ``#anchor`` to a heading of it; every Markdown file the
docs name in code (``events.md``, ``rules/murlan.md``) exists."""

from __future__ import annotations

import re
import unicodedata
from functools import cache
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
PARSER = MarkdownIt("commonmark").enable("table")


def _tokens(path: Path) -> list[Token]:
    return PARSER.parse(path.read_text(encoding="utf-8"))


def _inline(tokens: list[Token]) -> list[Token]:
    return [child for t in tokens if t.type == "inline" for child in t.children or ()]


def slug(text: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped,
    spaces to hyphens."""
    text = unicodedata.normalize("NFC", text).strip().lower()
    text = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LNM")
    return text.replace(" ", "-")


@cache
def anchors(path: Path) -> frozenset[str]:
    tokens = _tokens(path)
    found: list[str] = []
    seen: dict[str, int] = {}
    for i, token in enumerate(tokens):
        if token.type == "heading_open":
            base = slug(tokens[i + 1].content)
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.append(base if n == 0 else f"{base}-{n}")
    html = path.read_text(encoding="utf-8")
    found.extend(re.findall(r'<a (?:name|id)="([^"]+)"', html))
    return frozenset(found)


def _links(path: Path) -> list[str]:
    return [
        str(t.attrGet("href"))
        for t in _inline(_tokens(path))
        if t.type == "link_open" and t.attrGet("href")
    ]


def _relative(href: str) -> bool:
    return not re.match(r"^([a-z][a-z0-9+.-]*:|/|#?$)", href)


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(path: Path) -> None:
    broken = []
    for href in _links(path):
        target, _, anchor = href.partition("#")
        if href.startswith("#"):
            file = path
        elif _relative(href):
            file = (path.parent / target).resolve()
            if not file.exists() or ROOT not in file.parents:
                broken.append(f"{href}: no such file")
                continue
        else:
            continue
        if anchor and file.suffix == ".md" and anchor not in anchors(file):
            broken.append(f"{href}: no heading #{anchor}")
    assert not broken, broken


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_markdown_file_named_in_code_exists(path: Path) -> None:
    """``name.md`` in code is a file beside this one, under docs/, or from the root."""
    named = [
        t.content
        for t in _inline(_tokens(path))
        if t.type == "code_inline" and re.fullmatch(r"[\w./-]+\.md", t.content)
    ]
    missing = [
        name
        for name in named
        if not any((base / name).exists() for base in (path.parent, ROOT / "docs", ROOT))
    ]
    assert not missing, missing


def test_the_checks_catch_a_broken_link(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# Top\n\n[ok](#top) [gone](missing.md) [bad](#nowhere)\n", encoding="utf-8")
    assert _links(page) == ["#top", "missing.md", "#nowhere"]
    assert anchors(page) == frozenset({"top"})
    assert slug("Opening a table retry-safely") == "opening-a-table-retry-safely"
    assert slug("The `cardroom-replay-v1` document") == "the-cardroom-replay-v1-document"
