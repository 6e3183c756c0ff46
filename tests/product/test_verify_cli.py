"""``cardroom verify`` over many files, directories and JSON Lines, with a
summary; hostile documents (hypothesis mutates real replays) give a reason,
never a traceback."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.audit import check_document, check_text
from service.config import load_settings
from service.demo import play_bot_game
from service.replay import build_replay
from service.runtime import Runtime
from service.store.archive import export_jsonl
from workers.context import install
from workers.embedded import EmbeddedWorker

CARDROOM = str(Path(sys.executable).with_name("cardroom"))
SMALL = {
    "hazari": ({"target": 360}, None),
    "murlan": ({}, None),
    "azi": ({"buy_in": 40, "ante": 10, "min_bet": 10}, 3),
}

pytestmark = pytest.mark.xdist_group("verify-cli")


@pytest.fixture(scope="module")
def games() -> dict[str, Any]:
    runtime = Runtime.from_settings(load_settings(redis_url=None, bot_delay_s=0))
    install(runtime)
    worker = EmbeddedWorker(runtime)
    out: dict[str, Any] = {}
    for game, (options, seats) in SMALL.items():
        state, stored = play_bot_game(runtime, game, options, seats, worker.drain)
        out[game] = {
            "doc": build_replay(state, stored, None),
            "jsonl": export_jsonl(runtime.store, state.game_id),
        }
    return out


def verify(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CARDROOM, "verify", *args], capture_output=True, text=True, timeout=120)


def test_many_files_directories_and_archives(games: dict[str, Any], tmp_path: Path) -> None:
    folder = tmp_path / "replays"
    (folder / "deep").mkdir(parents=True)
    (folder / "hazari.json").write_text(json.dumps(games["hazari"]["doc"]))
    (folder / "deep" / "murlan.json").write_text(json.dumps(games["murlan"]["doc"]))
    (folder / "notes.txt").write_text("not a replay, not looked at")
    lines = tmp_path / "docs.jsonl"
    lines.write_text("".join(json.dumps(games[g]["doc"]) + "\n" for g in ("azi", "murlan")))
    archive = tmp_path / "azi-archive.jsonl"
    archive.write_text(games["azi"]["jsonl"])
    done = verify(str(folder), str(lines), str(archive))
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("OK: ") == 5
    last = done.stdout.strip().splitlines()[-1]
    assert last.startswith("cardroom verify: 5 games checked, 5 verified, 0 failed;")


def test_a_failure_among_many_is_named_and_counted(games: dict[str, Any], tmp_path: Path) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps(games["hazari"]["doc"]))
    doc = copy.deepcopy(games["murlan"]["doc"])
    hands = doc["deals"][1]["hands"]
    hands["0"][0], hands["1"][0] = hands["1"][0], hands["0"][0]
    bad = tmp_path / "swapped.json"
    bad.write_text(json.dumps(doc))
    cut = tmp_path / "cut.json"
    cut.write_text(json.dumps(games["azi"]["doc"])[:5000])
    done = verify(str(good), str(bad), str(cut), str(tmp_path / "missing.json"))
    assert done.returncode == 1
    assert f"FAILED: murlan game {doc['game_id']} ({bad}): " in done.stderr
    assert "deal 1" in done.stderr
    assert f"FAILED: {cut}: not JSON" in done.stderr
    assert "missing.json: no such file" in done.stderr
    assert "4 games checked, 1 verified, 3 failed" in done.stdout
    assert "Traceback" not in done.stderr


def test_stdin_and_an_empty_list(games: dict[str, Any]) -> None:
    done = subprocess.run(
        [CARDROOM, "verify", "-"],
        input=json.dumps(games["azi"]["doc"]),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0 and "1 games checked, 1 verified" in done.stdout
    empty = verify(str(Path(__file__).parent / "no-such-dir-here"))
    assert empty.returncode == 1 and "Traceback" not in empty.stderr


# -- hostile documents ---------------------------------------------------------------
def paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON value (keys and indexes), the value itself first."""
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out.extend(paths(v, (*prefix, k)))
    elif isinstance(value, list):
        for i, v in enumerate(value[:6]):  # the first items of each list are enough
            out.extend(paths(v, (*prefix, i)))
    return out


JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False),
    st.text(max_size=20),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=4), st.integers(), max_size=2),
)


def mutate(doc: Any, path: tuple[Any, ...], how: str, junk: Any) -> Any:
    doc = copy.deepcopy(doc)
    if not path:
        return junk
    parent = doc
    for part in path[:-1]:
        parent = parent[part]
    if how == "delete":
        del parent[path[-1]]
    else:
        parent[path[-1]] = junk
    return doc


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_mutated_documents_get_a_reason(games: dict[str, Any], data: st.DataObject) -> None:
    doc = games[data.draw(st.sampled_from(sorted(games)))]["doc"]
    path = data.draw(st.sampled_from(paths(doc)))
    how = data.draw(st.sampled_from(["delete", "replace"])) if path else "replace"
    mutated = mutate(doc, path, how, data.draw(JUNK))
    check = check_document(mutated, "mutated")
    if not check.ok:
        assert check.reason
    # a truncated text of it is a failure with a reason too
    text = json.dumps(mutated)
    cut = data.draw(st.integers(min_value=0, max_value=max(0, len(text) - 1)))
    [short] = check_text(text[:cut], "cut") or [None]
    assert short is not None and not short.ok and short.reason


def test_a_few_hostile_files_on_the_command_line(games: dict[str, Any], tmp_path: Path) -> None:
    doc = games["hazari"]["doc"]
    hostile = {
        "array.json": "[1, 2, 3]",
        "nested.json": "[" * 100_000 + "]" * 100_000,
        "seed.json": json.dumps({**doc, "server_seed": "zz" * 32}),
        "events.json": json.dumps({**doc, "events": [{"type": "Nonsense"}]}),
        "binary.json": "\udcff",
        "lines.jsonl": json.dumps(doc) + "\n{oops\n",
    }
    for name, text in hostile.items():
        (tmp_path / name).write_text(text, errors="surrogateescape")
    done = verify(str(tmp_path))
    assert done.returncode == 1
    assert "Traceback" not in done.stderr, done.stderr
    assert "7 games checked, 1 verified, 6 failed" in done.stdout, done.stdout + done.stderr
