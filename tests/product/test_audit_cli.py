"""``cardroom audit`` against a real Redis: every finished game of the store and
of its archive replayed, the filters, the processes, the JSON report, the exit
status, and the last audit's figures in the metrics. The adversary rewrites a
card of one archived game: the audit names that game and its deal."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from service.config import load_settings
from service.observe import SystemCollector
from service.retention import archive_game
from service.runtime import Runtime
from tests.testredis import TEST_REDIS
from workers.context import install
from workers.embedded import EmbeddedWorker

CARDROOM = str(Path(sys.executable).with_name("cardroom"))
URL = f"{TEST_REDIS}/12"

pytestmark = [pytest.mark.redis, pytest.mark.xdist_group("audit-cli")]

GAMES = (
    ("hazari", {"target": 360}, None, "bot"),
    ("murlan", {}, None, "bot"),
    ("azi", {"buy_in": 40, "ante": 10, "min_bet": 10}, 3, "bot"),
    ("azi", {"buy_in": 40, "ante": 10, "min_bet": 10}, 2, "Ann"),
)


def play(
    runtime: Runtime, worker: EmbeddedWorker, game: str, options: Any, seats: Any, who: str
) -> str:
    service = runtime.service()
    state = service.create_game(game, options, seats)
    for i in range(state.seat_count):
        service.take_seat(
            state.game_id, f"{who}-{i + 1}" if who == "bot" else who + str(i), bot=True
        )
    for _ in range(100_000):
        worker.drain()
        state = service.load(state.game_id)
        if state.over and state.server_seed is not None:
            return state.game_id
    raise AssertionError(f"{game} did not finish")


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    client = redis.Redis.from_url(URL)
    client.flushdb()
    archive = tmp_path_factory.mktemp("archive")
    url = archive.as_uri()
    runtime = Runtime.from_settings(
        load_settings(redis_url=URL, queue_name="audit-test", bot_delay_s=0, archive_url=url)
    )
    install(runtime)
    worker = EmbeddedWorker(runtime)
    ids = [play(runtime, worker, *g) for g in GAMES]
    unfinished = runtime.service().create_game("murlan", {}, None).game_id
    # two games leave Redis for the archive; the adversary rewrites one of them
    honest_path = archive_game(runtime.store, ids[1], url)
    tampered_path = Path(archive_game(runtime.store, ids[2], url).removeprefix("file://"))
    lines = tampered_path.read_text().splitlines()
    for n, line in enumerate(lines):
        row = json.loads(line)
        event = row["event"]
        if event.get("type") == "HandDealt" and event["deal"] == 1:
            # two seats still dealt cards (a seat out of chips is dealt none) trade one
            a, b = [hand for hand in event["hands"] if hand][:2]
            a[0], b[0] = b[0], a[0]
            lines[n] = json.dumps(row)
            break
    else:
        raise AssertionError("no second deal to tamper with")
    tampered_path.write_text("\n".join(lines) + "\n")
    yield {
        "ids": ids,
        "unfinished": unfinished,
        "url": url,
        "runtime": runtime,
        "honest": honest_path,
    }
    client.flushdb()


def audit(world: dict[str, Any], *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CARDROOM_REDIS_URL": URL, "CARDROOM_ARCHIVE_URL": world["url"]}
    return subprocess.run(
        [CARDROOM, "audit", *args], env=env, capture_output=True, text=True, timeout=300
    )


def test_every_finished_game_and_the_tampered_archive(
    world: dict[str, Any], tmp_path: Path
) -> None:
    out = tmp_path / "report.json"
    done = audit(world, "--jobs", "2", "--report", str(out))
    assert done.returncode == 1, done.stderr
    report = json.loads(out.read_text())
    assert report["format"] == "cardroom-audit-v1" and report["ok"] is False
    assert report["games_checked"] == 4  # the unfinished table is not one
    assert report["jobs"] == 2
    [failure] = report["failures"]
    assert failure["game_id"] == world["ids"][2]
    assert "deal 1" in failure["reason"]
    assert report["deals_checked"] > 4 and report["moves_checked"] > 4
    assert f"FAILED at version {failure['version']}: game {world['ids'][2]}" in done.stdout
    assert "4 games checked, 1 failed" in done.stdout
    assert "Traceback" not in done.stderr
    # piped: no progress bar drawn
    assert "\x1b[" not in done.stdout + done.stderr


def test_the_filters(world: dict[str, Any]) -> None:
    ids = world["ids"]
    hazari = json.loads(audit(world, "--kind", "hazari", "--json", "--no-record").stdout)
    assert hazari["ok"] and hazari["games_checked"] == 1
    ann = audit(world, "--player", "Ann0", "--json", "--jobs", "1", "--no-record")
    assert ann.returncode == 0 and json.loads(ann.stdout)["games_checked"] == 1
    picked = audit(world, "--game", ids[0], "--game", ids[1], "--json", "--no-record")
    assert picked.returncode == 0 and json.loads(picked.stdout)["games_checked"] == 2
    bad = audit(world, "--game", ids[2], "--json", "--no-record")
    assert bad.returncode == 1 and json.loads(bad.stdout)["games_failed"] == 1
    future = audit(world, "--since", "2999-01-01", "--json", "--no-record")
    assert future.returncode == 0 and json.loads(future.stdout)["games_checked"] == 0
    past = audit(world, "--until", "2000-01-01T00:00Z", "--json", "--no-record")
    assert json.loads(past.stdout)["games_checked"] == 0


def test_bad_options_say_what_is_wrong(world: dict[str, Any]) -> None:
    done = audit(world, "--since", "last tuesday")
    assert done.returncode == 2 and "not an ISO date" in done.stderr
    done = audit(world, "--jobs", "0")
    assert done.returncode == 2 and "--jobs" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_last_audit_is_in_the_metrics(world: dict[str, Any]) -> None:
    assert audit(world, "--jobs", "1").returncode == 1
    runtime = world["runtime"]
    families = {f.name: f for f in SystemCollector(runtime.service()).collect()}
    value = {name: f.samples[0].value for name, f in families.items() if f.samples}
    assert value["cardroom_audit_last_games"] == 4
    assert value["cardroom_audit_last_failures"] == 1
    assert abs(value["cardroom_audit_last_timestamp_seconds"] - runtime.store.now_ms() / 1000) < 300
    assert value["cardroom_audit_last_duration_seconds"] > 0
    ok = audit(world, "--kind", "hazari")
    assert ok.returncode == 0
    families = {f.name: f for f in SystemCollector(runtime.service()).collect()}
    assert families["cardroom_audit_last_failures"].samples[0].value == 0
