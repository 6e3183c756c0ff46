"""deploy/: every compose service runs a command the package has, and the
gunicorn configuration of the image serves a whole game against the real Redis."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
import yaml
from image import copies, dockerfile_stages
from test_docs_walkthrough import free_port, wait_ready

from service.cli import build_parser
from tests.testredis import TEST_REDIS

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
DEPLOY_REDIS_URL = f"{TEST_REDIS}/10"


def pyproject() -> dict[str, Any]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((ROOT / "deploy" / "compose.yaml").read_text())
    return data


def deployed() -> dict[str, Any]:
    """The services of the deploy itself (not those of an optional profile, such as
    ``monitoring``'s, checked by tests/product/test_monitoring.py)."""
    services: dict[str, Any] = compose()["services"]
    return {name: s for name, s in services.items() if not s.get("profiles")}


def test_only_the_front_is_published() -> None:
    """The API and the stream server are reached through nginx only (its timeouts
    hold slow clients, see docs/operations.md): no other service publishes a port;
    an optional profile's services publish on the loopback interface alone."""
    services = compose()["services"]
    published = sorted(name for name, service in deployed().items() if service.get("ports"))
    assert published == ["front"]
    for name, service in services.items():
        if name not in deployed():
            assert all(p.startswith("127.0.0.1:") for p in service.get("ports", [])), name


def test_every_service_command_exists_in_the_package() -> None:
    services = deployed()
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


def test_the_redis_image_is_pinned_to_the_release_the_tests_run() -> None:
    """The compose Redis is the exact release of the local redis-server the
    tests start (the deploy's redis.conf and users.acl are tested on it)."""
    image = compose()["services"]["redis"]["image"]
    name, _, tag = image.partition(":")
    assert name == "redis" and re.fullmatch(r"\d+\.\d+\.\d+", tag), image
    if (server := shutil.which("redis-server")) is None:
        pytest.skip("no redis-server installed; run tests/ensure-redis.sh")
    version = subprocess.run([server, "--version"], capture_output=True, text=True, check=True)
    assert f"v={tag} " in version.stdout, (image, version.stdout)


def test_the_image_installs_the_package_as_the_production_install_test_does() -> None:
    """The build stage installs the locked dependencies with their hashes, then the
    package alone (``--no-deps``, no extras) from the files it copies: what
    test_production_install.py builds its wheel from and installs the same way
    (the image itself is built where a Docker daemon is, docs/operations.md)."""
    build_stage = dockerfile_stages()[0]
    installs = [w for w in build_stage if w[:3] == ["RUN", "pip", "install"]]
    assert installs == [
        [
            "RUN",
            "pip",
            "install",
            "--no-cache-dir",
            "--prefix=/install",
            "--require-hashes",
            "-r",
            "deploy/requirements.lock",
        ],
        ["RUN", "pip", "install", "--no-cache-dir", "--prefix=/install", "--no-deps", "."],
    ]
    copied = {source for sources, _ in copies(build_stage) for source in sources}
    packages = pyproject()["tool"]["setuptools"]["packages"]["find"]["include"]
    needed = {
        "pyproject.toml",
        "setup.py",
        "MANIFEST.in",
        "LICENSE",
        pyproject()["project"]["readme"],
    }
    assert needed | {p.rstrip("*") for p in packages} <= copied
    for path in pyproject()["project"]["license-files"]:  # the build fails without them
        assert any(path == c or path.startswith(f"{c}/") for c in copied), path
    # the documents setup.py packs into the wheel
    assert {"docs/fairness.md", "docs/rules", "docs/play"} <= copied
    # the lock is copied, and installed, before the sources: a change to the code
    # keeps Docker's cached layer of the dependencies
    lock_copy = next(i for i, w in enumerate(build_stage) if "deploy/requirements.lock" in w[1:-1])
    first_source = next(i for i, w in enumerate(build_stage) if w[0] == "COPY" and "service" in w)
    assert lock_copy < build_stage.index(installs[0]) < first_source


# A stand-in for `docker`: records each call; keeps what `exec` is fed and, at `build`,
# a copy of each secret the override file names and its mode.
STUB_DOCKER = r"""#!/bin/sh
echo "$*" >>"$STUB_DIR/calls"
case "$*" in
  *" exec "*) cat >"$STUB_DIR/stdin"; exit "${STUB_EXEC_STATUS:-0}" ;;
  *" build") override=$(echo "$*" | sed 's/.* -f \([^ ]*\) build/\1/')
    for name in $(sed -n 's/^ *file: //p' "$override"); do
      cp "$name" "$STUB_DIR/$(basename "$name")"; stat -c %a "$name" >>"$STUB_DIR/modes"
    done ;;
esac
"""


@pytest.mark.parametrize("exec_status", [0, 3])
def test_the_image_smoke_script_builds_waits_plays_and_always_cleans_up(
    tmp_path: Path, exec_status: int
) -> None:
    """deploy/smoke.sh with a stub ``docker`` (no daemon here): builds, waits for every
    health check, runs deploy/smoke_client.py in the API's container through the front,
    and takes everything down, volumes too, whether or not the smoke test passed; on
    throwaway secrets, the password the shipped users.acl hashes."""
    stub = tmp_path / "bin" / "docker"
    stub.parent.mkdir()
    stub.write_text(STUB_DOCKER)
    stub.chmod(0o755)
    env = {
        **os.environ,
        "PATH": f"{stub.parent}{os.pathsep}{os.environ['PATH']}",
        "STUB_DIR": str(tmp_path),
        "STUB_EXEC_STATUS": str(exec_status),
    }
    done = subprocess.run(
        ["sh", str(ROOT / "deploy" / "smoke.sh")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == exec_status, done.stderr
    calls = [line.split() for line in (tmp_path / "calls").read_text().splitlines()]
    assert calls[0] == ["info"]
    compose = ["compose", "-p", "cardroom-smoke", "-f", "deploy/compose.yaml", "-f"]
    assert all(call[:6] == compose for call in calls[1:]), calls
    actions = [call[7:] for call in calls[1:]]
    expected = [["build"], ["up", "-d", "--wait", "--wait-timeout", "300"]]
    expected.append(["exec", "-T", "api", "python", "-", "http://front"])
    if exec_status:
        expected += [["ps", "-a"], ["logs", "--tail", "40"]]
    assert actions == [*expected, ["down", "-v", "--remove-orphans"]]
    smoke_client = (ROOT / "deploy" / "smoke_client.py").read_text()
    assert (tmp_path / "stdin").read_text() == smoke_client
    assert (tmp_path / "redis_password").read_text() == "change-me"
    assert re.fullmatch(r"k1:[A-Za-z0-9+/]{43}=\n", (tmp_path / "seed_keys").read_text())
    assert (tmp_path / "modes").read_text().split() == ["644", "644"]
    assert not Path(calls[1][6]).exists(), "the throwaway secrets were left behind"


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
            try:  # a worker ends its job first (a warm shutdown): slow on a busy machine
                proc.wait(60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
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


def gunicorn_settings(name: str, **env: str) -> dict[str, Any]:
    """The settings a deploy/ gunicorn config file sets, read as gunicorn reads it
    (the file run as Python), in this environment plus ``env``."""
    import runpy

    saved = dict(os.environ)
    os.environ.update(env)
    try:
        return runpy.run_path(str(ROOT / "deploy" / name))
    finally:
        os.environ.clear()
        os.environ.update(saved)


def seconds(duration: str) -> float:
    """A compose duration such as ``30s``, ``1m30s`` or ``1500ms``, in seconds."""
    units = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001, "us": 1e-6}
    parts = re.findall(r"(\d+(?:\.\d+)?)(ms|us|h|m|s)", duration)
    assert parts and "".join(n + u for n, u in parts) == duration, duration
    return sum(float(n) * units[u] for n, u in parts)


@pytest.mark.parametrize(
    ("service", "conf"), [("api", "gunicorn.conf.py"), ("streams", "gunicorn-streams.conf.py")]
)
def test_docker_waits_longer_than_gunicorn_drains(service: str, conf: str) -> None:
    """Docker's stop grace (10 s unless set) is above gunicorn's graceful timeout,
    so a stop lets the requests and streams in flight end before a SIGKILL."""
    grace = seconds(compose()["services"][service]["stop_grace_period"])
    graceful = gunicorn_settings(conf)["graceful_timeout"]
    assert grace >= graceful + 5, (service, grace, graceful)


def test_the_workers_stop_grace_covers_a_job_in_flight() -> None:
    """On SIGTERM an RQ worker finishes the job it runs: a drain hands its list
    over after DRAIN_MAX_S and then waits at most the longest linger the
    settings allow; the worker's and the scheduler's stop grace is above that."""
    from service.config import Settings
    from workers.jobs import DRAIN_MAX_S

    linger = Settings.model_fields["followup_linger_s"].metadata
    longest_linger = max(getattr(m, "le", 0) for m in linger)
    for service in ("worker", "scheduler"):
        grace = seconds(compose()["services"][service]["stop_grace_period"])
        assert grace > DRAIN_MAX_S + longest_linger + 5, (service, grace)


@pytest.mark.parametrize("conf", ["gunicorn.conf.py", "gunicorn-streams.conf.py"])
def test_gunicorn_keeps_its_heartbeat_files_in_memory(
    conf: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``worker_tmp_dir`` is /dev/shm where there is one (every Linux, the image),
    and gunicorn's own default where there is none (macOS), so `cardroom serve`
    and the tests still start there."""
    assert Path("/dev/shm").is_dir(), "a Linux machine has /dev/shm"
    assert gunicorn_settings(conf)["worker_tmp_dir"] == "/dev/shm"
    real_isdir = os.path.isdir
    monkeypatch.setattr(os.path, "isdir", lambda p: p != "/dev/shm" and real_isdir(p))
    assert gunicorn_settings(conf)["worker_tmp_dir"] is None


def test_the_audit_profile_runs_a_daily_audit_into_the_archive_volume() -> None:
    """``--profile audit``: one ``cardroom audit`` a day, with options the command
    takes, its report on the archive volume, on the deploy's settings."""
    service = compose()["services"]["audit"]
    assert service["profiles"] == ["audit"]
    script = service["command"][-1]
    assert service["command"][:2] == ["sh", "-c"] and "sleep 86400" in script
    audit = script[script.index("cardroom audit") :].split(";")[0].split()
    args = build_parser().parse_args(audit[1:])
    assert args.func.__name__ == "cmd_audit" and args.jobs == 2
    assert args.report.startswith("/var/lib/cardroom/archive/")
    assert "archive:/var/lib/cardroom/archive" in service["volumes"]
    assert service["environment"]["CARDROOM_REDIS_URL"].startswith("redis://cardroom@")
