"""deploy/: every compose service runs a command the package has, and the
gunicorn configuration of the image serves a whole game against the real Redis."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
import yaml
from test_docs_walkthrough import free_port, wait_ready

from service.cli import build_parser
from tests.testredis import TEST_REDIS

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
DEPLOY_REDIS_URL = f"{TEST_REDIS}/10"


def compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((ROOT / "deploy" / "compose.yaml").read_text())
    return data


def test_every_service_command_exists_in_the_package() -> None:
    services = compose()["services"]
    assert {"redis", "api", "streams", "front", "worker", "scheduler"} <= set(services)
    subcommands = set(build_parser()._subparsers._group_actions[0].choices)  # type: ignore[union-attr]
    for name, service in services.items():
        command = service.get("command")
        assert command, f"{name} has no command"
        assert "healthcheck" in service, f"{name} has no health check"
        if name == "redis":
            assert command[:2] == ["redis-server", "/usr/local/etc/redis/redis.conf"]
            continue
        if name == "front":
            assert service["image"].startswith("nginx:")
            assert "./nginx.conf:/etc/nginx/nginx.conf:ro" in service["volumes"]
            continue
        program = command[0]
        assert (BIN / program).exists(), f"{name}: {program} is not installed by the package"
        if program == "cardroom":
            assert command[1] in subcommands, f"{name}: no `cardroom {command[1]}`"
        if program == "gunicorn":
            conf = command[command.index("-c") + 1]
            assert (
                conf
                == {
                    "api": "/etc/cardroom/gunicorn.conf.py",
                    "streams": "/etc/cardroom/gunicorn-streams.conf.py",
                }[name]
            )
            module, _, factory = command[-1].partition(":")
            assert factory == "create_app()"
            assert callable(__import__(module, fromlist=["x"]).create_app)
    assert compose()["services"]["worker"]["deploy"]["replicas"] >= 2


def test_the_image_installs_the_gunicorn_config_it_runs() -> None:
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    assert "COPY deploy/gunicorn.conf.py /etc/cardroom/gunicorn.conf.py" in dockerfile
    assert (
        "COPY deploy/gunicorn-streams.conf.py /etc/cardroom/gunicorn-streams.conf.py" in dockerfile
    )
    assert "USER cardroom" in dockerfile and "-slim" in dockerfile


APP_SERVICES = ("api", "streams", "worker", "scheduler")
ARCHIVE_DIR = "/var/lib/cardroom/archive"


def test_compose_archives_finished_games_to_a_volume() -> None:
    """Finished games leave Redis by default: every cardroom process has the same
    archive URL (the workers and the scheduler write it, the API and the stream
    server read it) on one named volume mounted at that path."""
    data = compose()
    for name in APP_SERVICES:
        service = data["services"][name]
        assert service["environment"]["CARDROOM_ARCHIVE_URL"] == f"file://{ARCHIVE_DIR}", name
        assert f"archive:{ARCHIVE_DIR}" in service["volumes"], name
    assert "archive" in data["volumes"]
    assert f"archive:{ARCHIVE_DIR}" not in data["services"]["redis"]["volumes"]


def test_the_image_gives_its_user_the_archive_directory() -> None:
    """A new named volume takes the owner of the image's directory at its mount
    point: the image makes it the unprivileged user's (uid 10001), who runs."""
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    assert "useradd --system --uid 10001" in dockerfile
    made = re.search(r"install -d -o cardroom -g cardroom -m 07[0-7]0 (.*)", dockerfile)
    assert made is not None and ARCHIVE_DIR in made.group(1).split()
    assert dockerfile.index("install -d -o cardroom") < dockerfile.index("USER cardroom")


def test_the_compose_archive_url_is_one_the_retention_pass_writes(tmp_path: Path) -> None:
    """The same file:// form, pointed at a directory here: a finished game is
    archived there and still replays."""
    from service.api import create_app
    from service.config import load_settings
    from service.retention import events_or_archive, run_pass
    from service.runtime import Runtime
    from tests.api.helpers import Api
    from tests.api.test_events import finish_hazari

    url = compose()["services"]["worker"]["environment"]["CARDROOM_ARCHIVE_URL"]
    here = url.replace(ARCHIVE_DIR, str(tmp_path / "archive"))
    settings = load_settings(archive_url=here, archive_after_s=0, rate_limit="100000/second")
    app = create_app(settings, Runtime.from_settings(settings), {"RATELIMIT_ENABLED": False})
    api = Api(app.test_client(), app.extensions["cardroom"])
    tab = api.table("hazari", {"target": 360})
    finish_hazari(api, api.service, tab.game_id, tab.tokens)
    assert run_pass(api.service.store, settings).archived == [tab.game_id]
    assert (tmp_path / "archive" / f"{tab.game_id}.jsonl").is_file()
    state, _ = events_or_archive(api.service.store, tab.game_id, here)
    assert state.over


def test_redis_config_keeps_every_acknowledged_append() -> None:
    conf = (ROOT / "deploy" / "redis.conf").read_text().split("\n")
    assert "appendonly yes" in conf and "appendfsync always" in conf


@pytest.fixture
def stack() -> Iterator[str]:
    client = redis.Redis.from_url(DEPLOY_REDIS_URL)
    client.flushdb()
    port = free_port()
    env = {
        **os.environ,
        "CARDROOM_REDIS_URL": DEPLOY_REDIS_URL,
        "CARDROOM_QUEUE_NAME": f"deploy-{port}",
        "CARDROOM_BIND": f"127.0.0.1:{port}",
        "CARDROOM_API_PROCESSES": "2",
        "CARDROOM_BOT_DELAY_S": "0",
        "CARDROOM_LOG_LEVEL": "WARNING",
    }
    gunicorn = shutil.which("gunicorn", path=str(BIN))
    assert gunicorn is not None
    procs = [
        subprocess.Popen(
            [gunicorn, "-c", str(ROOT / "deploy" / "gunicorn.conf.py"), "service.api:create_app()"],
            env=env,
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        ),
        subprocess.Popen(
            [str(BIN / "cardroom"), "worker"],
            env=env,
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        ),
    ]
    url = f"http://127.0.0.1:{port}"
    try:
        wait_ready(url, procs[0])
        yield url
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait(15)
        client.flushdb()


@pytest.mark.redis
@pytest.mark.slow
def test_gunicorn_with_the_deploy_config_serves_a_whole_game(stack: str) -> None:
    with httpx.Client(base_url=stack, timeout=10) as http:
        game = http.post("/games", json={"game": "hazari", "options": {"target": 360}}).json()
        game_id = game["game_id"]
        for i in range(4):
            seat = http.post(f"/games/{game_id}/seats", json={"name": f"bot{i}", "bot": True})
            assert seat.status_code == 201
        deadline = time.monotonic() + 120
        with http.stream(
            "GET", f"/games/{game_id}/events", headers={"Accept": "application/x-ndjson"}
        ) as stream:
            for _line in stream.iter_lines():  # closes by itself when the game has ended
                assert time.monotonic() < deadline, "the game did not end"
        view = http.get(f"/games/{game_id}").json()
        assert view["status"] == "ended" and view["server_seed"]
        verified = http.get(f"/games/{game_id}/verify").json()
        assert verified["verified"] is True
        assert http.get("/metrics").status_code == 200
