"""``cardroom serve`` on its embedded default, as a player runs it: its games
survive a restart (a ``redis-server`` child on the data directory), the CLI
reaches them by id, its Redis never outlives it, and its console says one
line per request.

Each test runs ``cardroom serve`` as a process on a free port with a data
directory of its own; nothing touches the machine's shared Redis.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from service.devstack import CARDROOM, Serve, process_gone, tools_missing, wait_for
from service.store import keys

pytestmark = pytest.mark.slow

MISSING = tools_missing()
needs_redis_server = pytest.mark.skipif(MISSING is not None, reason=MISSING or "")


@pytest.fixture
def started(tmp_path: Path) -> Iterator[list[Serve]]:
    """Every ``cardroom serve`` a test starts, stopped at its end."""
    made: list[Serve] = []
    yield made
    for serve in made:
        serve.proc.kill()


def serve(tmp_path: Path, started: list[Serve], **env: str) -> Serve:
    made = Serve(tmp_path / "data", tmp_path / f"serve-{len(started)}.log", **env)
    started.append(made)
    return made.start()


def cli(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("CARDROOM_")}
    return subprocess.run(
        [CARDROOM, *args], env={**base, **env}, capture_output=True, text=True, timeout=120
    )


# -- a game played over HTTP ------------------------------------------------------------
def open_table(http: httpx.Client, url: str) -> tuple[str, list[str]]:
    """A Murlan table of four people (no bots: only the test moves it); its id and tokens."""
    r = http.post(f"{url}/games", json={"game": "murlan"})
    assert r.status_code == 201, r.text
    game_id = r.json()["game_id"]
    tokens = []
    for name in ("Ana", "Bo", "Cem", "Dee"):
        r = http.post(f"{url}/games/{game_id}/seats", json={"name": name})
        assert r.status_code == 201, r.text
        tokens.append(r.json()["token"])
    return game_id, tokens


def to_move(http: httpx.Client, url: str, game_id: str, tokens: list[str]) -> dict[str, Any]:
    """The view of the seat whose turn it is, once the deal is there."""

    def found() -> dict[str, Any] | None:
        for token in tokens:
            view = http.get(f"{url}/games/{game_id}", headers=auth(token)).json()
            if view.get("legal_moves"):
                return {**view, "token": token}
        return None

    seen: list[dict[str, Any]] = []

    def ready() -> bool:
        view = found()
        if view is not None:
            seen.append(view)
        return view is not None

    wait_for(ready, time.monotonic() + 30, lambda: f"nobody may move in {game_id}")
    return seen[-1]


def play(http: httpx.Client, url: str, game_id: str, tokens: list[str], moves: int) -> int:
    """Play ``moves`` moves (the first legal move of whoever is to act); the version."""
    version = 0
    for _ in range(moves):
        view = to_move(http, url, game_id, tokens)
        body = {"move": view["legal_moves"][0], "expected_version": view["version"]}
        r = http.post(f"{url}/games/{game_id}/moves", json=body, headers=auth(view["token"]))
        assert r.status_code == 201, r.text
        version = r.json()["version"]
    return version


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


# -- games survive a restart -------------------------------------------------------------
@needs_redis_server
def test_a_game_survives_a_restart_and_goes_on(tmp_path: Path, started: list[Serve]) -> None:
    first = serve(tmp_path, started)
    assert "games kept in" in "\n".join(first.log_lines())
    with httpx.Client(timeout=10) as http:
        game_id, tokens = open_table(http, first.url)
        version = play(http, first.url, game_id, tokens, 3)
        before = http.get(f"{first.url}/games/{game_id}", headers=auth(tokens[0])).json()
        assert first.stop() == 0

        again = serve(tmp_path, started)
        after = http.get(f"{again.url}/games/{game_id}", headers=auth(tokens[0])).json()
        assert after["version"] == version == before["version"]
        assert after["status"] == "playing"
        assert after["hand"] == before["hand"]  # the seat's token and hand came back
        listed = http.get(f"{again.url}/games").json()
        assert game_id in json.dumps(listed)

        assert play(http, again.url, game_id, tokens, 2) == version + 2


@needs_redis_server
def test_replay_and_export_reach_the_servers_games(tmp_path: Path, started: list[Serve]) -> None:
    running = serve(tmp_path, started)
    data = str(running.data_dir)
    with httpx.Client(timeout=10) as http:
        game_id, tokens = open_table(http, running.url)
        version = play(http, running.url, game_id, tokens, 2)

    shown = cli("replay", "--data-dir", data, game_id)
    assert shown.returncode == 0, shown.stderr
    assert f"murlan game {game_id} (playing)" in shown.stdout
    assert "Ana" in shown.stdout and f"v{version} " in shown.stdout

    running.stop()
    exported = cli("export", "--data-dir", data, game_id)  # no server: a Redis of its own
    assert exported.returncode == 0, exported.stderr
    doc = json.loads(exported.stdout)
    assert doc["game_id"] == game_id and len(doc["events"]) == version
    assert not (running.data_dir / "redis.url").exists()  # and it stopped it again

    missing = cli("replay", "--data-dir", data, "nosuchgame0000000")
    assert missing.returncode == 1 and "nosuchgame0000000" in missing.stderr


@needs_redis_server
def test_the_data_directory_has_one_server(tmp_path: Path, started: list[Serve]) -> None:
    first = serve(tmp_path, started)
    second = Serve(first.data_dir, tmp_path / "second.log")
    second.proc.start()
    assert second.proc.popen is not None
    assert second.proc.popen.wait(60) == 1
    said = "\n".join(second.log_lines())
    assert f"in use by pid {first.proc.pid}, cardroom serve" in said
    with httpx.Client(timeout=10) as http:
        assert http.get(f"{first.url}/healthz").status_code == 200


@needs_redis_server
def test_redis_dies_with_a_killed_server(tmp_path: Path, started: list[Serve]) -> None:
    """SIGKILL to ``cardroom serve`` alone (not its group): its Redis exits too
    (PR_SET_PDEATHSIG), after writing its append-only file."""
    first = serve(tmp_path, started)
    with httpx.Client(timeout=10) as http:
        game_id, tokens = open_table(http, first.url)
        version = play(http, first.url, game_id, tokens, 1)
    redis_pid = first.redis_pid()
    os.kill(first.proc.pid, signal.SIGKILL)
    wait_for(
        lambda: process_gone(redis_pid),
        time.monotonic() + 30,
        lambda: f"redis-server {redis_pid} outlived cardroom serve",
    )
    again = serve(tmp_path, started)
    with httpx.Client(timeout=10) as http:
        assert http.get(f"{again.url}/games/{game_id}").json()["version"] == version


def test_without_redis_server_it_says_games_are_lost(tmp_path: Path, started: list[Serve]) -> None:
    bare = tmp_path / "bin"
    bare.mkdir()
    running = serve(tmp_path, started, PATH=str(bare))
    said = "\n".join(running.log_lines())
    assert "redis-server is not installed" in said and "LOST when it stops" in said
    assert not (running.data_dir / "redis").exists()
    with httpx.Client(timeout=10) as http:
        assert http.post(f"{running.url}/games", json={"game": "murlan"}).status_code == 201


# -- the console -----------------------------------------------------------------------------
def json_lines(serve: Serve) -> list[dict[str, Any]]:
    return [json.loads(line) for line in serve.log_lines() if line.startswith("{")]


@needs_redis_server
def test_one_line_per_request_and_static_files_at_debug(
    tmp_path: Path, started: list[Serve]
) -> None:
    running = serve(tmp_path, started, CARDROOM_LOG_LEVEL="DEBUG")
    with httpx.Client(timeout=10) as http:
        for path in ("/", "/web/static/style.css", "/games"):
            assert http.get(running.url + path).status_code == 200
    running.stop()
    lines = running.log_lines()
    assert not [line for line in lines if "HTTP/1.1" in line]  # no Werkzeug access line
    requests = [e for e in json_lines(running) if e["msg"] == "request"]
    by_path = {e["path"]: e for e in requests}
    assert [e["path"] for e in requests].count("/") == 1
    assert by_path["/"]["level"] == "INFO" and by_path["/games"]["level"] == "INFO"
    assert by_path["/web/static/style.css"]["level"] == "DEBUG"


@needs_redis_server
def test_an_idle_server_says_nothing(tmp_path: Path, started: list[Serve]) -> None:
    """While a table waits for a person, passes of the reconciler (every 0.1 s
    here) log nothing; nor do static files at the default level."""
    running = serve(tmp_path, started, CARDROOM_RECONCILE_INTERVAL_S="0.1")
    with httpx.Client(timeout=10) as http:
        game_id, tokens = open_table(http, running.url)
        play(http, running.url, game_id, tokens, 1)
        assert http.get(f"{running.url}/web/static/style.css").status_code == 200
    said_before = len(running.log_lines())
    client = running.redis_client()
    sweeps: set[bytes] = set()

    def swept_thrice() -> bool:
        stamp = client.hget(keys.reconciler(), "swept_ms")
        if stamp is not None:
            sweeps.add(stamp)
        return len(sweeps) >= 4

    wait_for(swept_thrice, time.monotonic() + 30, lambda: "the reconciler did not sweep")
    client.close()
    assert running.log_lines()[said_before:] == []
    assert not [e for e in json_lines(running) if e.get("path", "").startswith("/web/static")]


def test_cli_without_redis_url_or_data_says_where_it_looked(tmp_path: Path) -> None:
    nowhere = tmp_path / "empty"
    done = cli("replay", "--data-dir", str(nowhere), "abc")
    assert done.returncode == 1
    assert f"no games here: {nowhere} holds no cardroom data" in done.stderr
