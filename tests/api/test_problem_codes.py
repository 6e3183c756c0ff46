"""Every problem carries a stable ``code`` and its ``params``, and every code the API can
return is in docs/api.md's error catalog with a message in all six languages.

The codes are gathered from the source (every problem type the API layer writes, the
narrow codes of :data:`service.api.errors.NARROW_CODES`, every code an ``OptionError``
is raised with) and from the catalog in docs/api.md, so a code added in either place
without the other, or without its messages, fails here. Live requests then check that
the bodies carry what the catalog promises: the field, the constraint and its limit;
the option and its bounds.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from service.api.errors import NARROW_CODES, PROBLEMS, TABLE_CONFLICTS
from service.engines.base import OPTION_CODES
from service.replay import MISMATCH_CODES

ROOT = Path(__file__).resolve().parents[2]
API_DOC = ROOT / "docs" / "api.md"
I18N = ROOT / "service" / "web" / "static" / "i18n"
LANGUAGES = ("en", "ru", "hu", "bg", "sq", "ne")


def catalog(lang: str, area: str) -> dict[str, str]:
    data: dict[str, str] = json.loads((I18N / lang / f"{area}.json").read_text(encoding="utf-8"))
    return data


def doc_table(first_header: str) -> set[str]:
    """The first column's codes of the docs/api.md table whose first header is ``first_header``."""
    text = API_DOC.read_text(encoding="utf-8")
    found = re.search(rf"^\| {re.escape(first_header)} \|.*\n\|[-|]+\|\n((?:\|.*\n)+)", text, re.M)
    assert found, f"no '{first_header}' table in docs/api.md"
    return set(re.findall(r"^\| `([a-z][a-z0-9_-]*)` \|", found.group(1), re.M))


def written_types() -> set[str]:
    """Every problem type the API layer and the web pages write (the slug of ``type``)."""
    slugs: set[str] = set()
    pattern = re.compile(r'(?:problem|ApiError)\(\s*\d{3},\s*"([a-z][a-z-]*)"')
    for path in (ROOT / "service" / "api").rglob("*.py"):
        slugs.update(pattern.findall(path.read_text(encoding="utf-8")))
    web = (ROOT / "service" / "web" / "rules.py").read_text(encoding="utf-8")
    slugs.update(re.findall(r'PROBLEM_TYPE \+ "([a-z-]+)"', web))
    slugs.update(rule.replace("_", "-") for rule in TABLE_CONFLICTS)
    return slugs


def raised_option_codes() -> set[str]:
    """The code of every ``OptionError(...)`` raised in the engines (its third argument)."""
    codes: set[str] = set()
    for path in (ROOT / "service" / "engines").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
                call = node.exc
                if getattr(call.func, "id", None) != "OptionError":
                    continue
                assert len(call.args) >= 3, f"{path}:{node.lineno}: an OptionError without a code"
                code = call.args[2]
                assert isinstance(code, ast.Constant), f"{path}:{node.lineno}"
                codes.add(str(code.value))
    return codes


def test_the_collectors_find_codes() -> None:
    assert {"illegal-move", "game-not-found", "rate-limited", "rules-not-found"} <= written_types()
    assert {"option-out-of-range", "option-choice", "seats-out-of-range"} <= raised_option_codes()
    assert len(PROBLEMS) > 15


def test_every_code_the_api_returns_is_in_the_catalog() -> None:
    documented = doc_table("Code") | doc_table("Problem type")
    returned = written_types() | set(NARROW_CODES) | raised_option_codes()
    assert raised_option_codes() <= set(OPTION_CODES)
    assert not returned - documented, f"codes missing from docs/api.md: {returned - documented}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_documented_code_has_a_message(lang: str) -> None:
    messages = catalog(lang, "problems")
    codes = doc_table("Code") | doc_table("Problem type")
    missing = sorted(
        c
        for c in codes
        if f"problems.code.{c}" not in messages and f"problems.type.{c}" not in messages
    )
    assert not missing, f"{lang}: codes without a message: {missing}"
    rules = sorted(r for r in doc_table("Rule") if f"problems.rule.{r}" not in messages)
    assert not rules, f"{lang}: rules without a message: {rules}"
    # What the pages say for a code they do not know, and for a lost connection.
    assert {"problems.unknown", "problems.network", "problems.field.other"} <= set(messages)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_verification_code_has_a_message(lang: str) -> None:
    messages = catalog(lang, "replay")
    for code in MISMATCH_CODES:
        assert f"replay.mismatchCode.{code}" in messages, (lang, code)
    assert {"replay.verified", "replay.verifyFailed", "replay.notYetSeed"} <= set(messages)


@pytest.mark.parametrize("lang", LANGUAGES[1:])
def test_no_code_message_is_left_in_english(lang: str) -> None:
    en, own = catalog("en", "problems"), catalog(lang, "problems")
    same = [
        k for k in en if k.startswith(("problems.code.", "problems.field.")) and own.get(k) == en[k]
    ]
    assert not same, same


def problem_of(client: FlaskClient, path: str, body: Any) -> dict[str, Any]:
    r = client.post(path, json=body)
    assert r.mimetype == "application/problem+json", r.get_data(as_text=True)
    data: dict[str, Any] = r.get_json()
    assert isinstance(data["code"], str) and isinstance(data["params"], dict), data
    return data


@pytest.mark.parametrize(
    ("options", "code", "params"),
    [
        (
            {"ante": 10, "buy_in": 5},
            "option-out-of-range",
            {"option": "ante", "value": 10, "min": 1, "max": 5},
        ),
        ({"ante": "ten"}, "option-not-whole", {"option": "ante"}),
        ({"deck": 32}, "option-choice", {"option": "deck", "choices": [27, 36]}),
        (
            {"colour": "red"},
            "option-unknown",
            {
                "option": "colour",
                "known": [
                    "ante",
                    "azi_buy_in",
                    "bot_delay_s",
                    "buy_in",
                    "cards",
                    "deck",
                    "min_bet",
                    "six_on_stage",
                    "turn_timeout_s",
                ],
            },
        ),
        (
            {"turn_timeout_s": 90000},
            "option-out-of-range",
            {"option": "turn_timeout_s", "value": 90000, "min": 1, "max": 86400},
        ),
    ],
)
def test_option_errors_carry_their_code_and_bounds(
    client: FlaskClient, options: dict[str, Any], code: str, params: dict[str, Any]
) -> None:
    body = problem_of(client, "/games", {"game": "azi", "seats": 2, "options": options})
    assert body["code"] == code and body["params"] == params
    assert body["type"].endswith("/bad-option") and body["option"] == params["option"]


def test_seats_out_of_range(client: FlaskClient) -> None:
    body = problem_of(client, "/games", {"game": "azi", "seats": 9})
    assert body["code"] == "seats-out-of-range"
    assert body["params"] == {"option": "seats", "min": 2, "max": 6}


@pytest.mark.parametrize(
    ("body", "field", "constraint", "limit"),
    [
        ({"name": "x" * 41}, "name", "max-length", 40),
        ({"name": ""}, "name", "min-length", 1),
        ({}, "name", "required", None),
        (
            {"name": "Ann", "client_seed": "no spaces"},
            "client_seed",
            "pattern",
            "^[A-Za-z0-9_-]{1,64}$",
        ),
        ({"name": "Ann", "bot": "yes"}, "bot", "type", None),
        ({"name": "Ann", "colour": "red"}, "colour", "unknown", None),
    ],
)
def test_pydantic_errors_are_invalid_field_with_the_constraint_and_limit(
    client: FlaskClient, body: dict[str, Any], field: str, constraint: str, limit: Any
) -> None:
    created = client.post("/games", json={"game": "murlan"}).get_json()
    problem = problem_of(client, f"/games/{created['game_id']}/seats", body)
    assert problem["code"] == "invalid-field" and problem["status"] == 422
    assert problem["params"] == {"field": field, "constraint": constraint, "limit": limit}
    assert problem["field"] == field  # the extension stays, for older clients


def test_problems_without_a_narrow_code_carry_their_type_and_extensions(
    client: FlaskClient,
) -> None:
    r = client.get("/games/NoSuchGame000000")
    body = r.get_json()
    assert r.status_code == 404 and body["code"] == "game-not-found" and body["params"] == {}
    r = client.get("/no/such/route")
    assert r.get_json()["code"] == "not-found"
    r = client.post("/games", data="{", content_type="application/json")
    assert r.get_json()["code"] == "malformed-json"
