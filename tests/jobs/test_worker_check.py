"""``cardroom worker --check``, the workers' compose health check: exit 0 only
while a worker of this host has a fresh heartbeat (real RQ registrations on
the test Redis)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import redis
from rq import Queue, Worker
from rq.utils import utcformat

from service.config import load_settings
from tests.conftest import REAL_REDIS_URL
from workers.check import check

pytestmark = [pytest.mark.redis]
CARDROOM = str(Path(sys.executable).with_name("cardroom"))


def registered(client: redis.Redis, beat_age_s: float = 0, **kwargs: object) -> Worker:
    worker = Worker([Queue("cardroom", connection=client)], connection=client, **kwargs)
    worker.register_birth()
    if beat_age_s:
        beat = datetime.now(UTC) - timedelta(seconds=beat_age_s)
        client.hset(worker.key, "last_heartbeat", utcformat(beat))
    return worker


def test_check_needs_a_fresh_heartbeat_of_this_host(
    real_redis: redis.Redis, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = load_settings(redis_url=REAL_REDIS_URL, worker_heartbeat_max_age_s=20)
    assert check(settings) == 1
    assert "no worker registered" in capsys.readouterr().err
    registered(real_redis, beat_age_s=25)  # this host's, but silent too long
    assert check(settings) == 1
    assert "last beat 25 s ago" in capsys.readouterr().err
    other = registered(real_redis)
    real_redis.hset(other.key, "hostname", "another-host")  # fresh, but not this host's
    assert check(settings) == 1
    registered(real_redis)
    assert check(settings) == 0
    assert socket.gethostname() in capsys.readouterr().out
    assert check(settings, hostname="another-host") == 0


def test_check_says_so_when_redis_does_not_answer(capsys: pytest.CaptureFixture[str]) -> None:
    settings = load_settings(
        redis_url="redis://127.0.0.1:1/0", redis_aof_acl_check="off", redis_connect_timeout_s=0.2
    )
    assert check(settings) == 1
    err = capsys.readouterr().err
    assert "cannot read the workers" in err and "Traceback" not in err


def test_the_command_exits_by_the_heartbeat(real_redis: redis.Redis) -> None:
    env = {**os.environ, "CARDROOM_REDIS_URL": REAL_REDIS_URL}
    run = subprocess.run(
        [CARDROOM, "worker", "--check"], env=env, capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr
    registered(real_redis)
    run = subprocess.run(
        [CARDROOM, "worker", "--check"], env=env, capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0, run.stderr


def test_the_workers_compose_health_check_is_this_command() -> None:
    """deploy/compose.yaml checks a worker by its heartbeat, not by a Redis ping."""
    import yaml

    from service.cli import build_parser

    compose = yaml.safe_load(
        (Path(__file__).resolve().parents[2] / "deploy" / "compose.yaml").read_text()
    )
    test = compose["services"]["worker"]["healthcheck"]["test"]
    assert test[:2] == ["CMD", "cardroom"]
    args = build_parser().parse_args(test[2:])
    assert args.command == "worker" and args.check
