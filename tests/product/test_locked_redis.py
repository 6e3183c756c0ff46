"""The locked deploy: deploy/redis.conf with deploy/users.acl serves a whole
game to a user that may not reconfigure or wipe the server, logging in with a
user name from the URL and a password from a file; its seeds rest sealed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from redis.exceptions import AuthenticationError, NoPermissionError, ResponseError
from test_docs_walkthrough import free_port

from service.api import create_app
from service.config import load_settings
from service.runtime import Runtime
from service.store import keys
from service.store.seeds import PREFIX, new_key_entry

ROOT = Path(__file__).resolve().parents[2]
CARDROOM = str(Path(sys.executable).with_name("cardroom"))
PASSWORD = "change-me"  # the placeholder whose hash deploy/users.acl ships with

pytestmark = pytest.mark.redis


@pytest.fixture
def locked(tmp_path: Path) -> Iterator[int]:
    """A redis-server of its own, started with the deploy's config and ACL."""
    if shutil.which("redis-server") is None:
        pytest.skip("no redis-server installed; run tests/ensure-redis.sh")
    port = free_port()
    # the deploy's config as it is, but for the paths of the container
    conf = (ROOT / "deploy" / "redis.conf").read_text()
    conf = conf.replace("dir /data", f"dir {tmp_path}")
    conf = conf.replace("/usr/local/etc/redis/users.acl", str(ROOT / "deploy" / "users.acl"))
    assert "protected-mode yes" in conf and "maxmemory-policy noeviction" in conf
    (tmp_path / "redis.conf").write_text(conf)
    proc = subprocess.Popen(
        [
            "redis-server",
            str(tmp_path / "redis.conf"),
            *("--port", str(port), "--bind", "127.0.0.1", "--appendfsync", "no"),
            *("--maxmemory", "64mb", "--save", ""),
        ],
        stdout=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 10
    while True:
        try:
            redis.Redis(port=port, username="cardroom", password=PASSWORD).ping()
            break
        except redis.ConnectionError:
            assert proc.poll() is None and time.monotonic() < deadline, "redis-server did not start"
            time.sleep(0.05)  # starting; poll until it answers
    yield port
    proc.terminate()
    proc.wait(10)


def test_a_locked_redis_serves_a_whole_game_with_sealed_seeds(locked: int, tmp_path: Path) -> None:
    port = locked
    with pytest.raises((AuthenticationError, ResponseError)):
        redis.Redis(port=port).set("cardroom:x", 1)  # the default user is off
    admin = redis.Redis(port=port, username="cardroom", password=PASSWORD)
    for command in (("CONFIG", "GET", "maxmemory"), ("FLUSHALL",), ("KEYS", "*"), ("SHUTDOWN",)):
        with pytest.raises(NoPermissionError):
            admin.execute_command(*command)
    with pytest.raises(NoPermissionError):
        admin.set("elsewhere", 1)  # only cardroom's own keys
    password_file = tmp_path / "redis_password"
    password_file.write_text(PASSWORD + "\n")
    keys_file = tmp_path / "seed_keys"
    keys_file.write_text(new_key_entry("k2") + "\n" + new_key_entry("k1") + "\n")
    url = f"redis://cardroom@127.0.0.1:{port}/0"
    env = {
        **os.environ,
        "CARDROOM_REDIS_URL": url,
        "CARDROOM_REDIS_PASSWORD_FILE": str(password_file),
        "CARDROOM_SEED_KEYS_FILE": str(keys_file),
        "CARDROOM_BOT_DELAY_S": "0",
        "CARDROOM_LOG_LEVEL": "WARNING",
    }
    worker_log = tmp_path / "worker.log"
    with worker_log.open("wb") as sink:
        worker = subprocess.Popen([CARDROOM, "worker"], env=env, stdout=sink, stderr=sink)
    try:
        settings = load_settings(
            redis_url=url,
            redis_password_file=str(password_file),
            seed_keys_file=str(keys_file),
            bot_delay_s=0,
            rate_limit="100000/minute",
        )
        app = create_app(settings, Runtime.from_settings(settings), {"TESTING": True})
        client = app.test_client()
        r = client.post("/games", json={"game": "hazari", "options": {"target": 360}})
        assert r.status_code == 201, r.get_json()
        gid = r.get_json()["game_id"]
        sealed = admin.get(keys.secret(gid))
        assert sealed is not None and sealed.startswith(PREFIX + b"k2:")
        for i in range(4):  # closing the answer sends its follow-up job
            with client.post(f"/games/{gid}/seats", json={"name": f"b{i}", "bot": True}) as r:
                assert r.status_code == 201
        deadline = time.monotonic() + 90
        view = client.get(f"/games/{gid}").get_json()
        while view.get("server_seed") is None:
            assert "version" in view, view
            stalled = time.monotonic() > deadline or worker.poll() is not None
            assert not stalled, (view["version"], worker_log.read_text()[-3000:])
            time.sleep(0.2)  # the worker plays the bots; poll for the end
            view = client.get(f"/games/{gid}").get_json()
        assert view["status"] == "ended"
        revealed = bytes.fromhex(view["server_seed"])
        assert revealed not in sealed and revealed.hex().encode() not in sealed
        assert admin.exists(keys.secret(gid)) == 0  # the event holds the only copy now
        verdict = client.get(f"/games/{gid}/verify").get_json()
        assert verdict["verified"] is True
    finally:
        worker.terminate()
        try:  # a worker ends its job first (a warm shutdown): slow on a busy machine
            worker.wait(60)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()
