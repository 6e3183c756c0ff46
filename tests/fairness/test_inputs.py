"""``cardroom fairness FILES`` checks its input: each document verified (or
counted only with ``--no-verify``), each game once, every rejected file named,
and no forged or truncated document crashes it."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.fairness.inputs import counted_inputs
from service.replay import RecordedEvent, build_replay
from tests.store.helpers import random_game

CARDROOM = str(Path(sys.executable).with_name("cardroom"))


@cache
def document(game: str, seed: int) -> str:
    played = random_game(game, seed, game_id=f"g-{game}-{seed}")
    recorded = [RecordedEvent(i + 1, e) for i, e in enumerate(played.events)]
    return json.dumps(build_replay(played.state, recorded))


def doc(game: str = "azi", seed: int = 0) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(document(game, seed))
    return loaded


def forged_deal(original: dict[str, Any]) -> dict[str, Any]:
    """Two cards swapped between hands in the deal event and its summary."""
    forged = copy.deepcopy(original)
    dealt = next(e for e in forged["events"] if e["type"] == "HandDealt")
    dealt["hands"][0][0], dealt["hands"][1][0] = dealt["hands"][1][0], dealt["hands"][0][0]
    return forged


def test_one_game_passed_many_times_counts_once_and_names_the_copies() -> None:
    same = [(f"copy{i}.json", doc()) for i in range(40)]
    found = counted_inputs([*same, ("other.json", doc("azi", 1))])
    assert found.games == 2
    assert [r.path for r in found.rejected] == [f"copy{i}.json" for i in range(1, 40)]
    assert all("already counted from copy0.json" in r.reason for r in found.rejected)
    once = counted_inputs([("a.json", doc()), ("b.json", doc("azi", 1))])
    assert found.counts == once.counts and found.deals == once.deals


def test_an_unverified_document_is_refused_unless_asked_not_to_verify() -> None:
    forged = forged_deal(doc())
    found = counted_inputs([("forged.json", forged)])
    assert found.games == 0 and found.rejected[0].path == "forged.json"
    assert "does not verify" in found.rejected[0].reason
    unverified = counted_inputs([("forged.json", forged)], verify=False)
    assert unverified.games == 1 and not unverified.rejected


def test_a_game_not_finished_and_unreadable_files_are_rejected() -> None:
    unfinished = doc()
    cut = next(i for i, e in enumerate(unfinished["events"]) if e["type"] == "SeedRevealed")
    unfinished["events"] = unfinished["events"][:cut]
    found = counted_inputs(
        [("open.json", unfinished), ("list.json", [1, 2]), ("bad.json", ValueError("no JSON"))]
    )
    assert found.games == 0
    reasons = {r.path: r.reason for r in found.rejected}
    assert "not ended" in reasons["open.json"]
    assert "JSON object" in reasons["list.json"] and "no JSON" in reasons["bad.json"]


def test_a_forged_card_never_crashes_the_unverified_count() -> None:
    forged = doc("murlan")
    dealt = next(e for e in forged["events"] if e["type"] == "HandDealt")
    dealt["hands"][0][0] = "ZZ"
    for verify in (True, False):
        found = counted_inputs([("zz.json", forged)], verify=verify)
        assert found.games == 0 and found.rejected[0].path == "zz.json"


def test_the_command_names_the_rejected_files(tmp_path: Path) -> None:
    good, forged, cut = tmp_path / "good.json", tmp_path / "forged.json", tmp_path / "cut.json"
    good.write_text(document("azi", 0))
    forged.write_text(json.dumps(forged_deal(doc("azi", 1))))
    cut.write_text(document("azi", 2)[:5000])
    args = [CARDROOM, "fairness", "--json", str(good), str(good), str(forged), str(cut)]
    run = subprocess.run(args, capture_output=True, text=True)
    assert run.returncode == 1, run.stderr
    assert "Traceback" not in run.stderr
    assert f"rejected {good}: game g-azi-0 is already counted" in run.stderr
    assert f"rejected {forged}: does not verify" in run.stderr
    assert f"rejected {cut}: cannot read" in run.stderr
    assert json.loads(run.stdout)["games"] == 1
    loose = subprocess.run([*args[:3], "--no-verify", str(forged)], capture_output=True, text=True)
    assert loose.returncode == 0 and "WITHOUT verification" in loose.stderr
    assert json.loads(loose.stdout)["games"] == 1


# -- mutated documents -------------------------------------------------------------------
JSONISH = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 60)
    | st.text(max_size=4)
    | st.sampled_from(["AS", "BJ", "??", "ZZ"]),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=6,
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value[:6]):
            out += _paths(v, (*prefix, i))
    return out


def mutate(original: dict[str, Any], path: tuple[Any, ...], new: Any, drop: bool) -> Any:
    if not path:
        return new
    out = copy.deepcopy(original)
    parent: Any = out
    for key in path[:-1]:
        parent = parent[key]
    if drop:
        del parent[path[-1]]
    else:
        parent[path[-1]] = new
    return out


@cache
def azi_paths() -> list[tuple[Any, ...]]:
    return _paths(doc())


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), JSONISH, st.booleans(), st.booleans())
def test_mutated_documents_are_counted_or_rejected_never_a_crash(
    data: st.DataObject, new: Any, drop: bool, verify: bool
) -> None:
    path = data.draw(st.sampled_from(azi_paths()))
    mutated = mutate(doc(), path, new, drop)
    found = counted_inputs([("m.json", mutated)], verify=verify)
    assert found.games + len(found.rejected) == 1
    if verify and found.games:
        # what verifies was not changed in anything the audit checks
        assert found.counts == counted_inputs([("o.json", doc())]).counts


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6))
def test_truncated_documents_are_rejected(cut: int) -> None:
    text = document("azi", 0)
    cut %= len(text)
    try:
        parsed: Any = json.loads(text[:cut])
    except ValueError as exc:
        parsed = exc
    found = counted_inputs([("t.json", parsed)])
    assert found.games == 0 and len(found.rejected) == 1


@pytest.mark.parametrize("game", ["hazari", "murlan"])
def test_every_game_verifies_and_counts(game: str) -> None:
    found = counted_inputs([("x.json", doc(game))])
    assert found.games == 1 and found.deals > 0 and not found.rejected
