"""The start-up check: a process refuses to run on a Redis with the AOF on whose
default user may not run the service's transactional writes (Redis would drop
them while loading the AOF after a restart), names the fix, and starts
silently on the shipped redis.conf and users.acl."""

from __future__ import annotations

import logging
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from service import aofcheck
from service.api import create_app
from service.config import load_settings
from service.devstack import CARDROOM, USERS_ACL, RedisServer, shared_cluster, tools_missing
from service.runtime import Runtime
from service.streams import create_app as create_streams_app

pytestmark = [
    pytest.mark.redis,
    pytest.mark.skipif(tools_missing() is not None, reason=str(tools_missing())),
]

OLD_DEFAULT = "user default off"
"""The line users.acl shipped with before: Redis 7.0.15 drops every game on restart."""


def acl_variant(directory: Path, *, default: str | None = None, drop: str = "") -> Path:
    """The shipped users.acl with its default user's line replaced by ``default``
    and the rule ``drop`` taken out of cardroom's line."""
    lines = USERS_ACL.read_text().splitlines()
    if default is not None:
        lines = [default if x.startswith("user default ") else x for x in lines]
    if drop:
        lines = [" ".join(w for w in x.split() if w != drop) for x in lines]
    path = directory / "variant.acl"
    path.write_text("\n".join(lines) + "\n")
    return path


def server_on(directory: Path, aclfile: Path = USERS_ACL) -> Iterator[RedisServer]:
    server = RedisServer(directory, deploy=True, aclfile=aclfile).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def shipped(tmp_path: Path) -> Iterator[RedisServer]:
    yield from server_on(tmp_path)


@pytest.fixture
def old_default(tmp_path: Path) -> Iterator[RedisServer]:
    yield from server_on(tmp_path, acl_variant(tmp_path, default=OLD_DEFAULT))


def said(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    """What the check logged (other loggers, e.g. the seed keys' warning, aside)."""
    return [r for r in caplog.records if r.name == aofcheck.log.name]


def test_the_shipped_acl_starts_silently(
    shipped: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    settings = load_settings(redis_url=shipped.url, queue_url=f"{shipped.url}/1")
    with caplog.at_level(logging.WARNING, logger="cardroom.redis"):
        Runtime.from_settings(settings)
        create_app(settings)
    assert said(caplog) == []
    with shipped.client() as client:
        assert client.info("persistence")["aof_enabled"] == 1  # the check had work to do
    (finding,) = aofcheck.check([shipped.client()], "refuse")
    assert finding.verdict == "safe"


def test_the_old_default_line_is_refused_naming_the_fix(old_default: RedisServer) -> None:
    settings = load_settings(redis_url=old_default.url)
    for build in (Runtime.from_settings, create_app, create_streams_app):
        with pytest.raises(aofcheck.AofAclHazard) as refused:
            build(settings)  # type: ignore[operator]
        message = str(refused.value)
        assert "default user may not run XADD cardroom:{probe}:events" in message
        assert "`user default off resetpass ~* &* +@all`" in message
        assert "CARDROOM_REDIS_AOF_ACL_CHECK=warn" in message


@pytest.mark.parametrize("command", ["worker", "scheduler"])
def test_the_worker_and_scheduler_refuse_to_start(
    old_default: RedisServer, tmp_path: Path, command: str
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CARDROOM_")}
    env["CARDROOM_REDIS_URL"] = old_default.url
    run = subprocess.run(
        [CARDROOM, command], env=env, capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    assert run.returncode == 1, run.stderr
    assert f"cardroom {command}: Redis at 127.0.0.1:{old_default.port} has the AOF on" in (
        run.stderr
    )
    assert "~* &* +@all" in run.stderr and "Traceback" not in run.stderr


def test_warn_downgrades_the_refusal_to_a_logged_error(
    old_default: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    settings = load_settings(redis_url=old_default.url, redis_aof_acl_check="warn")
    with caplog.at_level(logging.WARNING, logger="cardroom.redis"):
        runtime = Runtime.from_settings(settings)
    (record,) = said(caplog)
    assert record.levelno == logging.ERROR and "~* &* +@all" in record.getMessage()
    assert runtime.redis.ping()


def test_off_does_not_look(old_default: RedisServer, caplog: pytest.LogCaptureFixture) -> None:
    settings = load_settings(redis_url=old_default.url, redis_aof_acl_check="off")
    with caplog.at_level(logging.DEBUG, logger="cardroom.redis"):
        Runtime.from_settings(settings)
    assert said(caplog) == []


def test_without_acl_dryrun_it_warns_that_it_cannot_check(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """An operator's own ACL without ``+acl|dryrun``: the process runs and says
    what it could not check and how to fix that."""
    for server in server_on(tmp_path, acl_variant(tmp_path, drop="+acl|dryrun")):
        settings = load_settings(redis_url=server.url)
        with caplog.at_level(logging.WARNING, logger="cardroom.redis"):
            Runtime.from_settings(settings)
        (record,) = said(caplog)
        assert record.levelno == logging.WARNING
        message = record.getMessage()
        assert message.startswith(f"cannot check whether Redis at 127.0.0.1:{server.port}")
        assert "`+acl|dryrun`" in message and "~* &* +@all" in message


def test_without_aof_there_is_nothing_to_check(tmp_path: Path) -> None:
    server = RedisServer(tmp_path).start()  # no persistence, the default user
    try:
        (finding,) = aofcheck.check([server.client()], "refuse")
        assert finding.verdict == "safe"
    finally:
        server.stop()


def test_the_embedded_default_is_not_checked() -> None:
    settings = load_settings(redis_url=None)
    runtime = Runtime.from_settings(settings)  # fakeredis: never asked
    assert runtime.embedded


@pytest.mark.cluster
def test_every_node_of_a_cluster_is_checked() -> None:
    """A cluster's nodes each load their own AOF and have their own ACL: one
    node whose default user may not run XADD is found among them."""
    with shared_cluster() as cluster:
        nodes = [s.client() for s in cluster.servers]
        try:
            for node in nodes:
                node.config_set("appendonly", "yes")
            findings = aofcheck.check([cluster.client()], "warn")
            assert [f.verdict for f in findings] == ["safe"] * len(cluster.servers)
            nodes[1].acl_setuser("default", enabled=True, commands=["-xadd"], reset=False)
            with pytest.raises(aofcheck.AofAclHazard, match=f":{cluster.servers[1].port} has"):
                aofcheck.check([cluster.client()], "refuse")
        finally:
            for node in nodes:
                node.acl_setuser("default", enabled=True, commands=["+xadd"], reset=False)
                node.config_set("appendonly", "no")
