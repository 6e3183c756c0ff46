"""The fairness report's words: the report sends codes and figures beside its English
sentences, every code has a message in every language's catalog, the page words the
report from those codes only, and a report with too few hands says so."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from schemas.fairness import FairnessReport
from service.api import create_app
from service.cli import main as cli
from service.config import load_settings
from service.fairness import report, wording
from service.runtime import Runtime
from service.store import EventStore
from tests.fairness.synthetic import azi_deal, shuffler, tally

from .test_calibration import AZI, honest_counts

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "service" / "web" / "static"
LANGUAGES = ("en", "ru", "hu", "bg", "sq", "ne")
TEXTS = ("title", "label", "expectation", "test", "verdict")
"""The report's English texts: beside each, ``<text>_code`` says it as a code."""
NOT_ENOUGH = "Not enough hands yet to test"


def catalog(lang: str) -> dict[str, str]:
    return dict(json.loads((STATIC / "i18n" / lang / "fairness.json").read_text("utf-8")))


def message_keys() -> dict[str, str]:
    """Every catalog key the report's codes need -> the code it words."""
    keys: dict[str, str] = {}
    areas: list[tuple[str, tuple[str, ...]]] = [
        ("verdict.report", wording.REPORT_VERDICTS),
        ("verdict.feature", wording.FEATURE_VERDICTS),
        ("verdict.row", wording.ROW_VERDICTS),
        ("test", (wording.TEST_CODE,)),
        ("correction", (wording.CORRECTION,)),
        ("table", (*wording.TABLE_CODES, "other")),
        ("tableShort", (*wording.TABLE_CODES, "other")),
        ("feature", wording.FEATURE_TITLE_CODES),
        ("featureShort", wording.FEATURE_TITLE_CODES),
        ("expect", tuple(wording.EXPECTATIONS)),
        ("group", (*wording.GROUP_CODES, "other")),
    ]
    for area, codes in areas:
        keys.update({f"fairness.{area}.{code}": code for code in codes})
    return keys


def rigged_report() -> dict[str, Any]:
    """A report with flagged rows (a dealer who deals himself one more trump), the
    descriptive row of who wins the pots and that of who wins a game with people."""
    sh = shuffler("words-rigged")
    counts = tally("azi", AZI, [azi_deal(sh, d, rigged=True) for d in range(200)])
    for position, pots in enumerate((30, 50, 40, 80)):
        counts[f"azi/27/3|pot_winner_position|all|u:4|{position}"] = pots
        counts[f"azi/27/3|winner_seat|all|u:5|{position}"] = pots // 10
    return report.build(counts, {})


@pytest.fixture(scope="module")
def reports() -> list[dict[str, Any]]:
    """Reports of every kind: empty, too few hands, honest (also one player's), flagged."""
    honest = honest_counts(0, 240)
    return [
        report.build({}, {}),
        report.build(honest_counts(1, 2), {"games": 1, "deals": 2}),
        report.build(honest, {"games": 10, "deals": 240}),
        report.build(honest, {"games": 10, "deals": 240}, player="ana"),
        rigged_report(),
    ]


def walk(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from walk(value)


def codes_of(doc: dict[str, Any]) -> set[str]:
    """The catalog keys the page formats a report with (as fairness.js builds them)."""
    keys = {
        f"fairness.verdict.report.{doc['verdict_code']}",
        f"fairness.test.{doc['test_code']}",
        f"fairness.correction.{doc['correction']}",
    }
    for t in doc["tables"]:
        keys |= {f"fairness.table.{t['title_code']}", f"fairness.tableShort.{t['title_code']}"}
        for f in t["features"]:
            keys |= {
                f"fairness.feature.{f['title_code']}",
                f"fairness.featureShort.{f['title_code']}",
                f"fairness.expect.{f['expectation_code']}",
                f"fairness.verdict.feature.{f['verdict_code']}",
            }
            for g in f["groups"]:
                keys |= {
                    f"fairness.group.{g['label_code']}",
                    f"fairness.verdict.row.{g['verdict_code']}",
                }
    return keys


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_report_code_has_a_message_in_every_catalog(lang: str) -> None:
    messages, english = catalog(lang), catalog("en")
    missing = sorted(k for k in message_keys() if k not in messages)
    assert missing == [], f"{lang}: {missing}"
    if lang != "en":
        # Translated, not copied: only messages of placeholders alone ("{table}") stay as they are.
        copied = sorted(
            k
            for k in message_keys()
            if messages[k] == english[k] and re.sub(r"\{[^}]*\}|[\s:/()]", "", messages[k])
        )
        assert copied == [], f"{lang} keeps English: {copied}"


def test_every_code_a_report_carries_is_one_the_catalogs_word(
    reports: list[dict[str, Any]],
) -> None:
    used = set().union(*(codes_of(doc) for doc in reports))
    assert used <= set(message_keys()), sorted(used - set(message_keys()))
    # The reports above reach every verdict a row, a feature and the report can have.
    verdicts = {k for k in used if k.startswith("fairness.verdict.")}
    assert verdicts == {k for k in message_keys() if k.startswith("fairness.verdict.")}


def test_every_text_of_the_report_comes_with_its_code(reports: list[dict[str, Any]]) -> None:
    en = catalog("en")
    for doc in reports:
        FairnessReport.model_validate(doc)
        for node in walk(doc):
            for text in TEXTS:
                if text in node:
                    assert isinstance(node[text], str) and node[text], (text, node)
                    assert f"{text}_code" in node, f"{text} without a code: {node[text]!r}"
                    if f"{text}_params" in node:
                        params = node[f"{text}_params"]
                        assert isinstance(params, dict)
                        assert all(isinstance(v, (int, float, str)) for v in params.values())
        assert codes_of(doc) <= set(en)


def test_the_page_words_the_report_from_its_codes_alone() -> None:
    """fairness.js reads no English text of the report (its verdicts, titles, labels,
    expectations or the test's name), only their codes and figures."""
    script = (STATIC / "js" / "fairness.js").read_text("utf-8")
    english = re.findall(
        r"\b(?:report|tbl|f|feature|g|r|all|row)\.(?:" + "|".join(TEXTS) + r")\b(?!_)", script
    )
    assert english == []


def test_the_figures_of_a_verdict_are_the_row_s_own(reports: list[dict[str, Any]]) -> None:
    rows = [g for doc in reports for node in walk(doc) if "groups" in node for g in node["groups"]]
    for g in rows:
        p = g["verdict_params"]
        if "observed" in p:
            assert (p["observed"], p["expected"]) == (g["mean_observed"], g["mean_expected"])
        if "low" in p:
            assert [p["low"], p["high"]] == g["difference_ci95"] and p["difference"] == g[
                "difference"
            ]
        if g["verdict_code"] == "flagged":
            assert g["flagged"] and p["p_adjusted"] == g["p_adjusted"]
            assert p["direction"] == ("more" if g["difference"] > 0 else "fewer")


def test_a_report_with_no_games_says_not_enough_hands() -> None:
    doc = report.build({}, {})
    assert doc["tests"] == 0 and doc["verdict_code"] == "not-enough-hands"
    assert doc["verdict"].startswith(NOT_ENOUGH)
    assert "consistent with a fair deal" not in doc["verdict"]
    for lang in LANGUAGES:
        assert "fairness.verdict.report.not-enough-hands" in catalog(lang)
    assert catalog("en")["fairness.verdict.report.not-enough-hands"].startswith(NOT_ENOUGH)


def test_too_few_hands_say_so_overall_and_per_row() -> None:
    doc = report.build(honest_counts(1, 2), {"games": 1, "deals": 2})
    assert doc["tests"] == 0 and doc["tables"]
    assert doc["verdict_code"] == "not-enough-hands" and doc["verdict"].startswith(NOT_ENOUGH)
    assert "2 deal(s) counted" in doc["verdict"]
    rows = [g for t in doc["tables"] for f in t["features"] for g in f["groups"]]
    untested = [g for g in rows if g["p_value"] is None and g["verdict_code"] != "every-hand"]
    assert untested and all(g["verdict_code"] == "not-enough-hands" for g in untested)
    assert all(g["verdict"].startswith(NOT_ENOUGH) for g in untested)
    features = [f for t in doc["tables"] for f in t["features"] if not f["descriptive"]]
    assert all(f["verdict_code"] == "not-enough-hands" for f in features)
    assert not any("consistent" in g["verdict"].lower() for g in rows)


def test_a_report_with_tests_says_what_they_found(reports: list[dict[str, Any]]) -> None:
    honest, flagged = reports[2], reports[4]
    assert honest["tests"] > 0 and honest["verdict_code"] == "nothing-unusual"
    assert flagged["verdict_code"] == "flagged"
    assert flagged["verdict_params"]["flagged"] == len(flagged["flagged"]) > 0


def empty_store() -> EventStore:
    return EventStore(Runtime.from_settings(load_settings(redis_url=None)).redis)


def test_the_served_report_of_an_empty_store_says_not_enough_hands() -> None:
    runtime = Runtime.from_settings(load_settings(redis_url=None))
    app = create_app(load_settings(redis_url=None), runtime, {"TESTING": True})
    body = app.test_client().get("/fairness/report").get_json()
    FairnessReport.model_validate(body)
    assert body["games"] == 0 and body["tables"] == []
    assert body["verdict_code"] == "not-enough-hands" and body["verdict"].startswith(NOT_ENOUGH)
    assert body["test_code"] == wording.TEST_CODE and body["test_params"] == {
        "min_expected": 10,
        "exact_max": 4000,
    }


def test_the_command_says_not_enough_hands_in_english(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import service.cli.upkeep

    monkeypatch.setattr(service.cli.upkeep, "open_store", lambda args, settings=None: empty_store())
    assert cli(["fairness"]) == 0
    out = capsys.readouterr().out
    assert f"{NOT_ENOUGH}: no finished game has been counted yet." in out
    assert "consistent with a fair deal" not in out


def test_the_command_marks_untested_rows() -> None:
    text = report.render_text(report.build(honest_counts(1, 2), {"games": 1, "deals": 2}))
    lines = text.splitlines()
    assert lines[1].startswith(NOT_ENOUGH)
    seats = [line for line in lines if " seat 0 " in line]
    assert seats and all(line.endswith("not enough hands yet to test") for line in seats)
    # The rows over every hand of a per-hand feature are shown, never tested.
    every = [line for line in lines if " every hand " in line]
    assert any(line.endswith("shown, not tested") for line in every)
    assert all(
        line.endswith(("shown, not tested", "not enough hands yet to test")) for line in every
    )
