"""The table's words: every rule code an engine can refuse a move with and every problem
type the API can answer has a message in the problems catalog, and every message key the
table's modules and page use is in the English catalogs."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ENGINES = ROOT / "service" / "engines"
API = ROOT / "service" / "api"
STATIC = ROOT / "service" / "web" / "static"
EN = STATIC / "i18n" / "en"
TABLE_MODULES = [
    "table.js",
    "events.js",
    "pace.js",
    "summary.js",
    "murlan.js",
    "hazari.js",
    "hazari-eval.js",
    "azi.js",
]
AREAS = ["common", "table", "events", "problems", "murlan", "hazari", "azi", "seats"]
CODE = re.compile(r"^[a-z][a-z0-9_]*$")


def catalog(area: str) -> dict[str, str]:
    data = json.loads((EN / f"{area}.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return {str(k): str(v) for k, v in data.items()}


def all_messages() -> dict[str, str]:
    out: dict[str, str] = {}
    for area in AREAS:
        out.update(catalog(area))
    return out


def rule_codes() -> set[str]:
    """Every rule code in the engines: the first argument of each RuleError/TableError and
    each ``(code, message)`` pair a refusal is built from (Murlan's beat failures)."""
    codes: set[str] = set()
    for path in ENGINES.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                name = getattr(node.func, "id", getattr(node.func, "attr", ""))
                if name in ("RuleError", "TableError") and node.args:
                    first = node.args[0]
                    if isinstance(first, ast.Constant) and isinstance(first.value, str):
                        codes.add(first.value)
            elif isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple):
                items = node.value.elts
                if (
                    len(items) == 2
                    and isinstance(items[0], ast.Constant)
                    and isinstance(items[0].value, str)
                    and CODE.match(items[0].value)
                    and isinstance(items[1], ast.Constant | ast.JoinedStr)
                ):
                    codes.add(items[0].value)
    # The API turns a bad card token into this rule as well.
    codes.add("bad_card")
    return codes


def problem_types() -> set[str]:
    """Every problem type the API writes (the slug at the end of the ``type`` URI)."""
    slugs: set[str] = set()
    pattern = re.compile(r'(?:problem|ApiError)\(\s*\d{3},\s*"([a-z][a-z-]*)"')
    for path in API.rglob("*.py"):
        slugs.update(pattern.findall(path.read_text(encoding="utf-8")))
    from service.api.errors import TABLE_CONFLICTS

    slugs.update(rule.replace("_", "-") for rule in TABLE_CONFLICTS)
    return slugs


def test_the_engines_rule_codes_are_found() -> None:
    codes = rule_codes()
    # a sample from each engine and the table, so a broken collector cannot pass
    assert {"must_include_3s", "not_higher", "straight_not_next", "groups_out_of_order"} <= codes
    assert {"must_follow_suit", "not_your_turn", "table_full", "game_over"} <= codes
    assert all(CODE.match(c) for c in codes), codes


def test_every_rule_code_has_a_message() -> None:
    messages = catalog("problems")
    missing = sorted(c for c in rule_codes() if f"problems.rule.{c}" not in messages)
    assert not missing, f"rule codes without a problems.rule.* message: {missing}"


def test_every_problem_type_has_a_message() -> None:
    slugs = problem_types()
    assert {"illegal-move", "game-not-found", "stale-version", "rate-limited"} <= slugs
    messages = catalog("problems")
    missing = sorted(s for s in slugs if f"problems.type.{s}" not in messages)
    assert not missing, f"problem types without a problems.type.* message: {missing}"


@pytest.mark.parametrize("area", AREAS)
def test_catalogs_are_flat_and_keyed_by_area(area: str) -> None:
    messages = catalog(area)
    assert messages
    for key, message in messages.items():
        assert key.startswith(f"{area}."), key
        assert message.count("{") == message.count("}"), key
        # A message speaks to players: no internal codes in it.
        assert not re.search(r"\b[a-z]+_[a-z_]+\b", re.sub(r"\{[^{}]*", "", message)), key


def used_keys(text: str) -> set[str]:
    return set(re.findall(r"""\bt\(\s*['"]([a-zA-Z]+\.[\w.]+)['"]""", text))


@pytest.mark.parametrize("module", TABLE_MODULES)
def test_every_key_a_table_module_uses_exists(module: str) -> None:
    text = (STATIC / "js" / module).read_text(encoding="utf-8")
    messages = all_messages()
    missing = sorted(k for k in used_keys(text) if k not in messages)
    assert not missing, f"{module} uses keys missing from the catalogs: {missing}"


def test_every_key_of_the_table_page_exists() -> None:
    html = (STATIC / "table.html").read_text(encoding="utf-8")
    keys = set(re.findall(r'data-i18n="([^"]+)"', html))
    for attrs in re.findall(r'data-i18n-attr="([^"]+)"', html):
        keys.update(pair.split("=", 1)[1].strip() for pair in attrs.split(";"))
    messages = all_messages()
    assert keys and not sorted(k for k in keys if k not in messages)


def test_the_table_page_has_no_untranslated_text() -> None:
    """Every text node of table.html sits in an element with data-i18n."""
    html = (STATIC / "table.html").read_text(encoding="utf-8")
    body = html.split("<body>", 1)[1]
    for match in re.finditer(r"<(\w+)([^>]*)>([^<]+)<", body):
        tag, attrs, text = match.groups()
        if text.strip() and tag != "script":
            assert "data-i18n=" in attrs, f"<{tag}> {text.strip()!r} has no data-i18n"


def test_docs_api_lists_every_rule_code_and_problem_type() -> None:
    """docs/api.md's stable codes: every code a client can meet is documented."""
    text = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    section = text.split("### Stable codes", 1)[1].split("\n## ", 1)[0]
    documented = set(re.findall(r"^\| `([a-z0-9_-]+)` \|", section, flags=re.M))
    missing = sorted((rule_codes() | problem_types()) - documented)
    assert not missing, f"codes missing from docs/api.md: {missing}"
