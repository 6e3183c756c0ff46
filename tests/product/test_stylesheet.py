"""The pages' stylesheet is well formed: every block closed, and no rule inside a
rule. (Browsers read a rule left open as nesting the rest of the file under it,
which silently drops everything after it.)"""

from __future__ import annotations

import re
from pathlib import Path

STYLESHEET = Path(__file__).resolve().parents[2] / "service" / "web" / "static" / "style.css"


def blocks(css: str) -> list[tuple[int, str]]:
    """Each ``{`` and ``}`` with its line and the selector or at-rule before a ``{``."""
    css = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group().count("\n"), css, flags=re.S)
    css = re.sub(r"'[^'\n]*'|\"[^\"\n]*\"", "''", css)
    found: list[tuple[int, str]] = []
    start = 0
    for match in re.finditer(r"[{};]", css):
        line = css.count("\n", 0, match.start()) + 1
        if match.group() == "{":
            found.append((line, css[start : match.start()].strip()))
        elif match.group() == "}":
            found.append((line, "}"))
        start = match.end()
    return found


def problems(css: str) -> list[str]:
    """What is wrong with the blocks of ``css``: a stray ``}``, a rule opened
    inside a rule, a block never closed."""
    found: list[str] = []
    open_blocks: list[tuple[int, str]] = []
    for line, text in blocks(css):
        if text == "}":
            if not open_blocks:
                found.append(f"line {line}: a }} closes nothing")
            else:
                open_blocks.pop()
            continue
        if open_blocks and not open_blocks[-1][1].startswith("@"):
            outer_line, outer = open_blocks[-1]
            found.append(
                f"line {line}: {text!r} opens inside the rule {outer!r} of line {outer_line}"
                " (is that rule's } missing?)"
            )
        open_blocks.append((line, text))
    found.extend(f"line {line}: {text!r} is never closed" for line, text in open_blocks)
    return found


def test_every_block_closes_and_only_at_rules_hold_rules() -> None:
    assert problems(STYLESHEET.read_text(encoding="utf-8")) == []


def test_the_check_finds_a_rule_left_open_and_a_stray_brace() -> None:
    left_open = "@media (x) {\n  .a {\n    color: red;\n  .b { color: blue; }\n}\n"
    assert problems(left_open) == [
        "line 4: '.b' opens inside the rule '.a' of line 2 (is that rule's } missing?)",
        "line 1: '@media (x)' is never closed",
    ]
    assert problems(".a { content: '}'; }\n/* { */\n}") == ["line 3: a } closes nothing"]
    assert problems("@media (x) { .a { color: red; } }") == []


def test_the_features_stylesheet_too() -> None:
    features = STYLESHEET.with_name("features.css")
    assert problems(features.read_text(encoding="utf-8")) == []
