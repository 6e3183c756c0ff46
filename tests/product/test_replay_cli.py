"""Replay documents, the offline audit and its command line, on demo games."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from schemas.replay import ReplayDocument, replay_json_schema
from service.config import load_settings
from service.demo import DEMO_GAMES, play_bot_game
from service.render import render_replay
from service.replay import audit_replay, build_replay, verify_game
from service.runtime import Runtime
from workers.context import install
from workers.embedded import EmbeddedWorker

ROOT = Path(__file__).resolve().parents[2]
CARDROOM = str(Path(sys.executable).with_name("cardroom"))

SMALL = {
    "hazari": ({"target": 360}, None),
    "murlan": ({}, None),
    "azi": ({"buy_in": 40, "ante": 10, "min_bet": 10}, 3),
}


# One worker runs the whole module, so its games (below) are played once, not once a worker.
pytestmark = pytest.mark.xdist_group("replay-cli")


@pytest.fixture(scope="module")
def finished_games() -> Iterator[dict[str, tuple[Any, list[Any]]]]:
    runtime = Runtime.from_settings(load_settings(redis_url=None, bot_delay_s=0))
    install(runtime)
    worker = EmbeddedWorker(runtime)
    games = {}
    for game, (options, seats) in SMALL.items():
        games[game] = play_bot_game(runtime, game, options, seats, worker.drain)
    yield games


@pytest.fixture(scope="module")
def documents(finished_games: dict[str, tuple[Any, list[Any]]]) -> dict[str, dict[str, Any]]:
    return {g: build_replay(state, stored, None) for g, (state, stored) in finished_games.items()}


def test_demo_covers_every_game() -> None:
    assert {g for g, _, _ in DEMO_GAMES} == set(SMALL)


@pytest.mark.parametrize("game", sorted(SMALL))
def test_finished_replay_is_complete_and_valid(game: str, documents: dict[str, Any]) -> None:
    doc = documents[game]
    ReplayDocument.model_validate(doc)
    assert doc["complete"] and doc["server_seed"]
    assert [e["version"] for e in doc["events"]] == list(range(1, len(doc["events"]) + 1))
    assert all("??" not in json.dumps(d["hands"]) for d in doc["deals"])
    moves = [e for e in doc["events"] if "move" in e]
    assert moves and all("action" in e["move"] and "seat" in e for e in moves)
    report = audit_replay(doc)
    assert report.ok, report.mismatch
    assert report.deals_checked == len(doc["deals"]) and report.moves_checked == len(moves)


@pytest.mark.parametrize("game", sorted(SMALL))
def test_server_verify_agrees(game: str, finished_games: dict[str, Any]) -> None:
    state, stored = finished_games[game]
    answer = verify_game(state, stored)
    assert answer["verified"] is True and answer["commitment_ok"] is True


def test_the_independent_verifier_of_the_docs_accepts_real_games(documents: dict[str, Any]) -> None:
    import re

    code = re.search(r"```python\n(.*?)```", (ROOT / "docs" / "fairness.md").read_text(), re.S)
    assert code is not None
    namespace: dict[str, Any] = {"__name__": "verifier"}
    exec(code.group(1), namespace)
    for doc in documents.values():
        assert namespace["check"](doc) == len(doc["deals"])
    tampered = copy.deepcopy(documents["murlan"])
    hand = tampered["deals"][0]["hands"]["0"]
    hand[0], hand[1] = hand[1], hand[0]
    with pytest.raises(AssertionError):
        namespace["check"](tampered)
    # a derived seat seed the server did not derive from its committed seed
    forged = copy.deepcopy(documents["murlan"])
    seat = next(s for s in forged["seats"] if s["seed_origin"] == "derived")
    seat["client_seed"] = "f" * 32
    with pytest.raises(AssertionError, match=f"seat {seat['seat']}: seed"):
        namespace["check"](forged)
    assert namespace["check"](old_scheme(documents["murlan"])) == len(documents["murlan"]["deals"])


def old_scheme(doc: dict[str, Any]) -> dict[str, Any]:
    """``doc`` as a document written before seed origins were recorded: seats
    without ``seed_origin``, ``SeatTaken`` events of schema version 2."""
    old = copy.deepcopy(doc)
    for seat in old["seats"]:
        seat.pop("seed_origin"), seat.pop("seed_derivation", None)
    for event in old["events"]:
        if event["type"] == "SeatTaken":
            event["schema_version"] = 2
            del event["seed_origin"]
    return old


def test_a_replay_says_who_chose_each_seed(documents: dict[str, Any]) -> None:
    for doc in documents.values():
        for seat in doc["seats"]:
            assert seat["bot"] and seat["seed_origin"] == "derived"
            assert seat["seed_derivation"] == (
                f'hex(HMAC-SHA256(server_seed, "client-seed:{seat["seat"]}"))[:32]'
            )
        report = audit_replay(doc)
        assert report.ok and report.seeds_committed is True
        assert [s["origin"] for s in report.seeds] == ["derived"] * len(doc["seats"])


def test_an_old_scheme_document_verifies_and_says_its_seeds_were_not_committed(
    tmp_path: Path, documents: dict[str, Any]
) -> None:
    old = old_scheme(documents["azi"])
    report = audit_replay(old)
    assert report.ok, report.mismatch
    assert report.seeds_committed is False and "not committed" in report.notes[0]
    path = tmp_path / "old.json"
    path.write_text(json.dumps(old))
    ok = subprocess.run([CARDROOM, "verify", str(path)], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    assert "NOT committed" in ok.stdout


def _first(doc: dict[str, Any], kind: str) -> dict[str, Any]:
    return next(e for e in doc["events"] if e["type"] == kind)


def tamper_deal(doc: dict[str, Any]) -> None:
    deal = next(e for e in doc["events"] if e["type"] == "HandDealt")
    deal["hands"][0][0], deal["hands"][1][0] = deal["hands"][1][0], deal["hands"][0][0]


def tamper_move(doc: dict[str, Any]) -> None:
    """A play in the middle of the match made with a card of another seat's
    hand of the same deal: a card the moving seat cannot hold."""
    hands: list[list[str]] = []
    plays: list[tuple[dict[str, Any], list[list[str]]]] = []
    for event in doc["events"]:
        if event["type"] == "HandDealt":
            hands = event["hands"]
        elif event.get("move", {}).get("action") == "play":
            plays.append((event, hands))
    event, dealt = plays[len(plays) // 2]
    other = next(c for s, h in enumerate(dealt) if s != event["seat"] for c in h)
    event["cards"] = [other, *event["cards"][1:]]
    event["move"]["cards"] = event["cards"]


def tamper_result(doc: dict[str, Any]) -> None:
    doc["result"]["scores"][0] += 1


def tamper_seed(doc: dict[str, Any]) -> None:
    doc["server_seed"] = "00" * 32


def tamper_summary(doc: dict[str, Any]) -> None:
    first = doc["deals"][0]["hands"]
    first["0"], first["1"] = first["1"], first["0"]


def tamper_seat_seed(doc: dict[str, Any]) -> None:
    """The last seat's seed, chosen by the server after the others, in seat and event."""
    doc["seats"][-1]["client_seed"] = "chosen-later"
    taken = [e for e in doc["events"] if e["type"] == "SeatTaken"][-1]
    taken["client_seed"] = "chosen-later"


@pytest.mark.parametrize(
    ("tamper", "says"),
    [
        (tamper_deal, "deal 0"),
        (tamper_move, "move"),
        (tamper_result, "result"),
        (tamper_seed, "commitment"),
        (tamper_summary, "deals summary"),
        (tamper_seat_seed, "derived from the server seed"),
    ],
)
def test_tampering_is_caught(tamper: Any, says: str, documents: dict[str, Any]) -> None:
    doc = copy.deepcopy(documents["murlan"])
    tamper(doc)
    report = audit_replay(doc)
    assert not report.ok
    assert report.mismatch is not None and says in report.mismatch["reason"]


def test_cli_verify_and_replay(tmp_path: Path, documents: dict[str, Any]) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps(documents["azi"]))
    ok = subprocess.run([CARDROOM, "verify", str(good)], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    assert "OK" in ok.stdout and "derived from the committed seed and re-derived" in ok.stdout
    bad_doc = copy.deepcopy(documents["hazari"])
    tamper_result(bad_doc)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(bad_doc))
    failed = subprocess.run([CARDROOM, "verify", str(bad)], capture_output=True, text=True)
    assert failed.returncode == 1 and "FAILED" in failed.stderr and "result" in failed.stderr
    text = subprocess.run(
        [CARDROOM, "replay", str(good), "--at", "12"], capture_output=True, text=True, check=True
    ).stdout
    assert "deal 0" in text and "stopped after version 12" in text
    assert any(sym in text for sym in "\u2666\u2665\u2660")


def test_render_shows_moves_with_suit_symbols(documents: dict[str, Any]) -> None:
    text = render_replay(documents["murlan"])
    assert "play" in text and "\u2660" in text and "result:" in text


def test_committed_schema_is_current() -> None:
    committed = json.loads((ROOT / "docs" / "replay-format.schema.json").read_text())
    assert committed == json.loads(json.dumps(replay_json_schema())), (
        "run: cardroom schema > docs/replay-format.schema.json"
    )
