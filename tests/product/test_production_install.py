"""A production install runs every process of the deploy.

The wheel is built from exactly the files the image's build stage copies
(``deploy/Dockerfile``) and installed as the image installs it into a fresh
virtual environment that holds nothing else (no pip, no setuptools): first
``deploy/requirements.lock`` with ``--require-hashes`` (the project's
``[project].dependencies`` and the ``s3`` extra, pinned), then the wheel with
``--no-deps``, so ``pip check`` there proves the lock complete. From there each command of
``deploy/compose.yaml`` runs as compose runs it (its configuration files
where the image's final stage puts them, under a private root; compose's
environment, the Redis user in the URL and its password in a secret file,
the queue on database 1) against a Redis on the deploy's own ``redis.conf``
and ``users.acl``, with the working directory outside the repository and no
``PYTHONPATH``: nothing can come from the source tree.

The install is made once per test session: about 50 s on two loaded cores
(12 s of CPU), most of it pip unpacking scipy, numpy and gevent from its
cache. The game is deploy/smoke_client.py, what deploy/smoke.sh runs in the
image. docs/reliability.md, "A production install runs", has the figures.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import httpx
import pytest
import yaml
from image import dockerfile_stages, stage_files

from service.devstack import (
    DEPLOY_PASSWORD,
    Proc,
    RedisServer,
    free_ports,
    stop_all,
    wait_for,
)
from service.store import keys

# one worker makes the install (about 50 s) once for both tests
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("image-wheel")]

ROOT: Final = Path(__file__).resolve().parents[2]
COMPOSE: Final = ROOT / "deploy" / "compose.yaml"
PROCESSES: Final = ("api", "streams", "scheduler", "worker")
"""The compose services that run the package (the others are Redis and nginx)."""
INSTALL_TIMEOUT_S: Final = 300
START_TIMEOUT_S: Final = 60
SMOKE_TIMEOUT_S: Final = 180
SMOKE_CLIENT: Final = ROOT / "deploy" / "smoke_client.py"


def compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(COMPOSE.read_text())
    return data


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without the project's settings or anything that
    would point Python at other code (``PYTHONPATH``, a virtual environment)."""
    dropped = ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONUSERBASE", "VIRTUAL_ENV")
    env = {
        k: v for k, v in os.environ.items() if not k.startswith("CARDROOM_") and k not in dropped
    }
    env.update(extra)
    return env


def run(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        args,
        cwd=cwd,
        env=env or clean_env(),
        capture_output=True,
        text=True,
        timeout=INSTALL_TIMEOUT_S,
    )
    assert done.returncode == 0, f"{' '.join(args)}:\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
    return done.stdout


@dataclass(frozen=True)
class Install:
    """The production install: its virtual environment, the image's final-stage
    files under ``root`` and a working directory outside the repository."""

    venv: Path
    root: Path
    cwd: Path

    @property
    def python(self) -> str:
        return str(self.venv / "bin" / "python")

    def pip(self, *args: str) -> str:
        """This session's pip working on the install's environment (which has none)."""
        return run([sys.executable, "-m", "pip", "--python", self.python, *args], self.cwd)


@pytest.fixture(scope="session")
def production_install(
    tmp_path_factory: pytest.TempPathFactory, image_wheel: tuple[Path, Path]
) -> Install:
    """Build the wheel from the image's build context and install it as the image does
    (the lock with its hashes, then the package with ``--no-deps``), once per session."""
    base = tmp_path_factory.mktemp("production")
    build_stage, final_stage = dockerfile_stages()[0], dockerfile_stages()[-1]
    lock_line, package_line = (w for w in build_stage if w[:3] == ["RUN", "pip", "install"])
    assert "--require-hashes" in lock_line and lock_line[-2] == "-r"
    assert package_line[-2:] == ["--no-deps", "."]
    wheel, source = image_wheel
    made = Install(venv=base / "venv", root=base / "image", cwd=base / "run")
    made.cwd.mkdir()
    run([sys.executable, "-m", "venv", "--without-pip", str(made.venv)], base)
    # --no-compile: the processes compile what they import; pip would compile everything
    made.pip("install", "--no-compile", "--require-hashes", "-r", str(source / lock_line[-1]))
    made.pip("install", "--no-compile", "--no-deps", str(wheel))
    stage_files(made.root, final_stage)
    return made


def test_the_install_is_complete_and_imports_nothing_from_the_source_tree(
    production_install: Install,
) -> None:
    assert "No broken requirements found." in production_install.pip("check")
    site = production_install.venv / "lib"
    modules = ("service", "workers", "schemas")
    probe = f"import {', '.join(modules)}; print({', '.join(m + '.__file__' for m in modules)})"
    found = run([production_install.python, "-c", probe], production_install.cwd).split()
    assert len(found) == len(modules) and all(Path(f).is_relative_to(site) for f in found), found


@dataclass
class Deploy:
    """The four processes of compose on a Redis of their own."""

    api: str
    streams: str
    redis: RedisServer
    procs: dict[str, Proc]

    def alive(self) -> None:
        for name, proc in self.procs.items():
            if proc.started and not proc.running:
                raise AssertionError(f"{name} exited with {proc.returncode}:\n{proc.log_tail(30)}")


def compose_environment(install: Install, redis_port: int, secrets: Path) -> dict[str, str]:
    """Compose's environment of the application's services, for this Redis and these
    secrets (``redis:6379`` and ``/run/secrets`` of the compose network and image)."""
    env: dict[str, str] = {}
    for name, value in compose()["x-app"]["environment"].items():
        text = str(value).replace("@redis:6379/", f"@127.0.0.1:{redis_port}/")
        env[name] = text.replace("/run/secrets/", f"{secrets}/")
    assert env["CARDROOM_QUEUE_URL"].endswith("/1") and "PASSWORD" not in env["CARDROOM_REDIS_URL"]
    return env


def command(install: Install, service: str) -> list[str]:
    """Compose's command of ``service``, its program from the install's ``bin`` and its
    files where the image put them."""
    program, *args = compose()["services"][service]["command"]
    staged = [str(install.root / a.lstrip("/")) if a.startswith("/etc/") else a for a in args]
    for arg in staged:
        assert not arg.startswith(str(install.root)) or Path(arg).is_file(), arg
    return [str(install.venv / "bin" / program), *staged]


@pytest.fixture
def deploy(production_install: Install, tmp_path: Path) -> Iterator[Deploy]:
    """Redis on the deploy's config and ACL; the API, the stream server and the
    scheduler started (the worker is left to the test)."""
    redis = RedisServer(tmp_path, deploy=True).start()
    secrets = tmp_path / "secrets"
    secrets.mkdir()
    (secrets / "redis_password").write_text(f"{DEPLOY_PASSWORD}\n")
    cardroom = str(production_install.venv / "bin" / "cardroom")
    key = run([cardroom, "seed-key", "k1"], production_install.cwd)
    (secrets / "seed_keys").write_text(key)
    api_port, stream_port = free_ports(2)
    env = clean_env(
        PATH=f"{production_install.venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
        PYTHONUNBUFFERED="1",
        **compose_environment(production_install, redis.port, secrets),
        CARDROOM_BIND=f"127.0.0.1:{api_port}",
        CARDROOM_STREAM_BIND=f"127.0.0.1:{stream_port}",
        CARDROOM_API_PROCESSES="1",
        CARDROOM_BOT_DELAY_S="0",
    )
    procs = {
        name: Proc(
            name,
            command(production_install, name),
            tmp_path / f"{name}.log",
            env,
            cwd=production_install.cwd,
        )
        for name in PROCESSES
    }
    made = Deploy(f"http://127.0.0.1:{api_port}", f"http://127.0.0.1:{stream_port}", redis, procs)
    try:
        for name in ("api", "streams", "scheduler"):
            procs[name].start()
        yield made
    finally:
        stop_all(procs.values(), 20)
        redis.stop()


def wait_healthy(deploy: Deploy, http: httpx.Client, url: str) -> None:
    def healthy() -> bool:
        try:
            return http.get(f"{url}/healthz").status_code == 200
        except httpx.HTTPError:
            return False

    wait_for(
        healthy,
        time.monotonic() + START_TIMEOUT_S,
        lambda: f"{url}/healthz did not answer",
        alive=deploy.alive,
    )


def run_healthcheck(install: Install, deploy: Deploy, service: str) -> None:
    """Compose's health check of ``service``, run by the install's Python with the
    service's environment (the ports it names are this deploy's)."""
    kind, program, *args = compose()["services"][service]["healthcheck"]["test"]
    assert kind == "CMD" and program in ("python", "cardroom")
    ports = {"127.0.0.1:8000": deploy.api[7:], "127.0.0.1:8001": deploy.streams[7:]}
    for fixed, ours in ports.items():
        args = [a.replace(fixed, ours) for a in args]
    command = (
        install.python if program == "python" else str(Path(install.python).with_name(program))
    )
    env = deploy.procs[service].env
    check = compose()["services"][service]["healthcheck"]
    start_period_s = duration_s(check.get("start_period", "0s"))
    if not start_period_s:
        run([command, *args], install.cwd, env)
        return
    # as compose does: checks that fail within the start period do not count
    failures: list[str] = []

    def passes() -> bool:
        done = subprocess.run(
            [command, *args], cwd=install.cwd, env=env, capture_output=True, text=True
        )
        failures.append(done.stderr.strip())
        return done.returncode == 0

    wait_for(
        passes,
        time.monotonic() + start_period_s,
        lambda: f"{service}'s health check failed for {start_period_s:g} s: {failures[-1]}",
        alive=deploy.alive,
        interval_s=duration_s(check.get("start_interval", "5s")),
    )


def duration_s(text: str) -> float:
    """A compose duration such as ``30s`` or ``1m30s``, in seconds."""
    units = {"h": 3600, "m": 60, "s": 1, "ms": 0.001}
    parts = re.findall(r"(\d+(?:\.\d+)?)(ms|h|m|s)", text)
    assert parts and "".join(n + u for n, u in parts) == text, text
    return sum(float(n) * units[u] for n, u in parts)


def wait_swept(deploy: Deploy) -> None:
    """Until the reconciler has finished a sweep (only the scheduler runs one here)."""
    client = deploy.redis.client()
    try:
        wait_for(
            lambda: client.hget(keys.reconciler(), "swept_ms") is not None,
            time.monotonic() + START_TIMEOUT_S,
            lambda: f"the scheduler ran no pass:\n{deploy.procs['scheduler'].log_tail(30)}",
            alive=deploy.alive,
        )
    finally:
        client.close()


def test_every_process_of_the_deploy_runs_from_the_production_install(
    production_install: Install, deploy: Deploy
) -> None:
    with httpx.Client(timeout=10) as http:
        wait_healthy(deploy, http, deploy.api)
        wait_healthy(deploy, http, deploy.streams)
    wait_swept(deploy)
    for service in ("api", "streams", "scheduler"):
        run_healthcheck(production_install, deploy, service)
    deploy.procs["worker"].start()
    run_healthcheck(production_install, deploy, "worker")
    # what deploy/smoke.sh runs in the image: a bot game to its end through both servers
    with SMOKE_CLIENT.open("rb") as script:
        smoke = subprocess.run(
            [production_install.python, "-", deploy.api, deploy.streams],
            stdin=script,
            cwd=production_install.cwd,
            env=deploy.procs["api"].env,
            capture_output=True,
            text=True,
            timeout=SMOKE_TIMEOUT_S,
        )
    assert smoke.returncode == 0, f"{smoke.stdout}{smoke.stderr}"
    assert "played to its end" in smoke.stdout
    deploy.alive()
    stop_all(deploy.procs.values(), 20)
    codes = {name: proc.returncode for name, proc in deploy.procs.items()}
    assert codes == dict.fromkeys(PROCESSES, 0), codes
