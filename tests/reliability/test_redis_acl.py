"""The shipped ACL is closed: user ``cardroom`` may run what the service sends,
and none of the commands that reconfigure, wipe, stop, replicate or spy on the
server.

A deployment shaped as the compose file runs it (Redis on the shipped
``redis.conf``; the event store on database 0, the RQ broker on database 1;
the API under gunicorn, two workers, the scheduler) plays every game to its
end over HTTP, with live streams, replays and verification, and every
``cardroom`` command that talks to Redis runs once. Redis's ACL is the shipped
``users.acl`` byte for byte with an ``admin`` line appended
(:func:`service.devstack.acl_with_admin`), so that the test can read ``INFO
commandstats`` and ``ACL LOG`` and ask ``ACL DRYRUN cardroom …`` afterwards.
"""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis

from bench.players import TableSpec
from service.devstack import (
    ADMIN_PASSWORD,
    ADMIN_USER,
    CARDROOM,
    DEPLOY_PASSWORD,
    DEPLOY_USER,
    REDIS_CLI,
    USERS_ACL,
    RedisServer,
    Stack,
    acl_with_admin,
    create_bot_game,
    stack_env,
    wait_for,
)
from tests.reliability.faults import Players, check_all, figures, needs_redis_server

pytestmark = [needs_redis_server, pytest.mark.redis]

TABLES = [
    TableSpec("azi", {"buy_in": 40, "ante": 10, "min_bet": 10}, 3),
    TableSpec("hazari", {"target": 360}),
    TableSpec("murlan", {}, bots=3),
]

RARE = {
    "auth": "redis-py logs in with AUTH on RESP2 (HELLO … AUTH on RESP3)",
    "discard": "redis-py ends a transaction it could not send",
    "unwatch": "redis-py resets a WATCHed pipeline (RQ's dependencies)",
    "script|exists": "redis-py runs a Script on a plain pipeline (RQ's scheduler lock)",
    "wait": "CARDROOM_REDIS_WAIT_REPLICAS: an append waits for its replicas",
    "command": "the cluster client reads the command table (where each command's keys are)",
    "cluster|slots": "the cluster client learns the slot map (deploy/redis.conf on cluster nodes)",
    "asking": "the cluster client follows an ASK redirect while a slot migrates",
    "lpop": "RQ: a queue's jobs taken without blocking",
    "blpop": "RQ: an older dequeue path",
    "lmove": "RQ: a job moved to its intermediate queue without blocking",
    "lpos": "RQ: where a job sits in its queue",
    "hexists": "RQ: whether a job has a field",
    "scard": "RQ: Worker.count (the drain slots)",
    "zcard": "RQ: a registry's size",
    "zcount": "RQ's registry scripts",
    "zpopmin": "RQ's scheduled-job scripts",
    "zremrangebyrank": "RQ: trimming a registry",
    "unsubscribe": "RQ: a worker leaves its command channel when it stops",
}
"""Commands cardroom may run that a run of the games does not send, and why it may."""

DANGEROUS = [
    ("SCRIPT", "FLUSH"),
    ("SCRIPT", "KILL"),
    ("FUNCTION", "FLUSH"),
    ("FUNCTION", "DELETE", "lib"),
    ("FUNCTION", "LOAD", "#!lua name=x\n"),
    ("FUNCTION", "RESTORE", "x"),
    ("FUNCTION", "KILL"),
    ("FCALL", "f", "0"),
    ("FLUSHALL",),
    ("FLUSHDB",),
    ("SWAPDB", "0", "1"),
    ("CONFIG", "SET", "appendonly", "no"),
    ("CONFIG", "GET", "*"),
    ("CONFIG", "REWRITE"),
    ("SHUTDOWN",),
    ("DEBUG", "SLEEP", "1"),
    ("KEYS", "*"),
    ("SCAN", "0"),
    ("MONITOR",),
    ("CLIENT", "KILL", "ID", "1"),
    ("CLIENT", "LIST"),
    ("CLIENT", "PAUSE", "1000"),
    ("CLIENT", "NO-EVICT", "on"),
    ("ACL", "SETUSER", "cardroom", "+@all"),
    ("ACL", "GETUSER", "default"),
    ("ACL", "LIST"),
    ("ACL", "LOAD"),
    ("ACL", "SAVE"),
    ("REPLICAOF", "127.0.0.1", "1"),
    ("SLAVEOF", "127.0.0.1", "1"),
    ("FAILOVER",),
    ("SYNC",),
    ("MODULE", "LIST"),
    ("SAVE",),
    ("BGSAVE",),
    ("BGREWRITEAOF",),
    ("MIGRATE", "127.0.0.1", "1", "cardroom:x", "0", "1"),
    ("RESTORE", "cardroom:x", "0", "x"),
    ("DUMP", "cardroom:x"),
    ("SORT", "cardroom:x"),
    ("OBJECT", "ENCODING", "cardroom:x"),
    ("MEMORY", "USAGE", "cardroom:x"),
    ("SLOWLOG", "RESET"),
    ("LATENCY", "RESET"),
    ("LASTSAVE",),
    ("PUBLISH", "rq:pubsub:x", "x"),
    ("PSUBSCRIBE", "*"),
    ("CLUSTER", "RESET"),
    ("CLUSTER", "FAILOVER"),
    ("READONLY",),
]
"""What the ACL must refuse: each reconfigures, wipes, stops, replicates, stalls
or spies on the server, or is simply not the service's to send."""


def allowed_commands() -> set[str]:
    """The commands the shipped cardroom line grants (``+name``; it starts ``-@all``)."""
    line = next(x for x in USERS_ACL.read_text().splitlines() if x.startswith("user cardroom "))
    rules = line.split()
    assert "-@all" in rules and not any(r.startswith("+@") for r in rules), line
    return {r[1:] for r in rules if r.startswith("+")}


@pytest.fixture
def compose_like(tmp_path: Path) -> Iterator[Stack]:
    """The compose deployment's shape on the shipped ACL plus an admin."""
    server = RedisServer(tmp_path, deploy=True, aclfile=acl_with_admin(tmp_path))
    env = stack_env(
        f"{server.url}/0",
        queue_url=f"{server.url}/1",
        CARDROOM_LOG_LEVEL="INFO",
        CARDROOM_ARCHIVE_URL=str(tmp_path / "archive"),
    )
    stack = Stack(env, directory=tmp_path, redis=server)
    try:
        server.start()
        stack.start_api(2, 8)
        stack.start_worker()
        stack.start_worker()
        stack.start_scheduler()
        stack.wait_healthy()
        yield stack
    finally:
        stack.stop()


def cardroom(stack: Stack, *args: str, **env: str) -> str:
    """Run ``cardroom *args`` with the stack's environment; its standard output."""
    run = subprocess.run(
        [CARDROOM, *args], env={**stack.env, **env}, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, (args, run.stderr[-2000:])
    return run.stdout


def play_everything(stack: Stack, directory: Path) -> list[str]:
    """Every game to its end, then every read and every ``cardroom`` store command."""
    players = Players(stack.api_url, TABLES)
    ids = [t.game_id for t in players.start()]
    players.join()
    check_all(stack, players, ids)  # replays and verification over HTTP too
    with httpx.Client(base_url=stack.api_url, timeout=30) as http:
        for path in ("/healthz", "/metrics", "/games", "/fairness", f"/games/{ids[0]}/replay"):
            assert http.get(path).status_code == 200, path
    jsonl = directory / "game.jsonl"
    cardroom(stack, "export", ids[0], "-o", str(directory / "game.json"))
    cardroom(stack, "export", ids[0], "--format", "jsonl", "-o", str(jsonl))
    cardroom(stack, "replay", ids[1])
    cardroom(stack, "fairness", "--rebuild")
    cardroom(stack, "fairness", "--json")
    assert "archived" in cardroom(stack, "archive", CARDROOM_ARCHIVE_AFTER_S="0")
    cardroom(stack, "import", str(jsonl))  # back from the archive's export
    return ids


def test_cardroom_may_run_what_the_service_sends_and_no_more(
    compose_like: Stack, tmp_path: Path
) -> None:
    stack = compose_like
    play_everything(stack, tmp_path)
    admin = stack.redis.admin_client()
    stats = {
        name.removeprefix("cmdstat_"): fields for name, fields in admin.info("commandstats").items()
    }
    denied = [
        entry
        for entry in admin.acl_log(count=1000)
        if entry.get("username") in (DEPLOY_USER, DEPLOY_USER.encode())
    ]
    assert not denied, denied  # nothing any process sent was refused, swallowed or not
    rejected = {name: f["rejected_calls"] for name, f in stats.items() if f["rejected_calls"]}
    assert not rejected, rejected
    used = set(stats)
    allowed = allowed_commands()
    assert used <= allowed, f"sent but not granted: {sorted(used - allowed)}"
    assert allowed - used <= set(RARE), f"granted, never sent: {sorted(allowed - used - set(RARE))}"
    assert set(RARE) <= allowed, f"listed as rare but not granted: {sorted(set(RARE) - allowed)}"
    calls = sum(int(f["calls"]) for f in stats.values())
    figures(
        "closed ACL",
        commands_sent=len(used),
        granted=len(allowed),
        granted_not_sent=sorted(allowed - used),
        calls=calls,
        eval_us_per_call=stats["eval"]["usec_per_call"],
        evalsha_us_per_call=stats["evalsha"]["usec_per_call"],
    )


def test_the_acl_refuses_every_dangerous_command(tmp_path: Path) -> None:
    server = RedisServer(tmp_path, deploy=True, aclfile=acl_with_admin(tmp_path)).start()
    try:
        admin = server.admin_client(decode_responses=True)
        for command in DANGEROUS:
            verdict = admin.execute_command("ACL", "DRYRUN", DEPLOY_USER, *command)
            assert verdict != "OK", f"cardroom may run {' '.join(command)}"
        # on its own keys and channel only
        for command, target in [
            (("GET", "elsewhere"), "key"),
            (("XADD", "other:{x}:events", "*", "a", "b"), "key"),
            (("EVAL", "return 1", "1", "elsewhere"), "key"),
            (("SUBSCRIBE", "news"), "channel"),
        ]:
            verdict = admin.execute_command("ACL", "DRYRUN", DEPLOY_USER, *command)
            assert target in verdict, (command, verdict)
        for command in (("GET", "cardroom:{x}:meta"), ("SUBSCRIBE", "rq:pubsub:w1")):
            assert admin.execute_command("ACL", "DRYRUN", DEPLOY_USER, *command) == "OK"
        # and in practice, as cardroom, over the wire
        client = server.client()
        for command in (("SCRIPT", "FLUSH"), ("FLUSHALL",), ("CONFIG", "GET", "*")):
            with pytest.raises(redis.exceptions.NoPermissionError):
                client.execute_command(*command)
        with pytest.raises(redis.exceptions.ResponseError, match="can't run this command"):
            client.eval("return redis.call('FLUSHALL')", 0)  # a script runs as its caller
    finally:
        server.stop()


def test_the_acl_cannot_stop_a_busy_script(tmp_path: Path) -> None:
    """What the ACL does not stop: cardroom must run scripts, and a script that
    loops holds every other client of the server until it ends."""
    server = RedisServer(tmp_path, deploy=True).start()
    try:
        busy_s = 1.0
        loop = "local t = redis.call('TIME'); local s = t[1] + t[2] / 1e6; " + (
            "repeat t = redis.call('TIME') until t[1] + t[2] / 1e6 - s >= tonumber(ARGV[1])"
        )
        spinner = threading.Thread(target=lambda: server.client().eval(loop, 0, busy_s))
        other = server.client()
        spinner.start()
        stalled_s = 0.0
        while spinner.is_alive() and stalled_s < busy_s / 2:  # PING until one meets the script
            begun = time.monotonic()
            other.ping()
            stalled_s = max(stalled_s, time.monotonic() - begun)
        spinner.join(10)
        figures("busy script", script_s=busy_s, other_client_stalled_s=round(stalled_s, 2))
        assert stalled_s >= busy_s / 2
    finally:
        server.stop()


@pytest.fixture
def deploy_cluster(tmp_path: Path) -> Iterator[list[RedisServer]]:
    """Three cluster masters on the shipped redis.conf and users.acl (plus the
    admin, who creates the cluster: cardroom may not)."""
    acl = acl_with_admin(tmp_path)
    options = ("--cluster-enabled", "yes", "--cluster-node-timeout", "5000")
    nodes = [RedisServer(tmp_path, *options, deploy=True, aclfile=acl) for _ in range(3)]
    try:
        for node in nodes:
            node.start()
        admin = ["--user", ADMIN_USER, "--pass", ADMIN_PASSWORD, "--no-auth-warning"]
        seeds = [f"127.0.0.1:{node.port}" for node in nodes]
        create = [REDIS_CLI, *admin, "--cluster", "create", *seeds, "--cluster-yes"]
        subprocess.run(create, check=True, capture_output=True, timeout=60)

        def ok() -> bool:
            infos = [node.admin_client().execute_command("CLUSTER INFO") for node in nodes]
            return all(info["cluster_state"] == "ok" for info in infos)

        wait_for(ok, time.monotonic() + 60, lambda: "the cluster did not reach cluster_state:ok")
        yield nodes
    finally:
        for node in nodes:
            node.kill()


@pytest.mark.cluster
def test_cluster_nodes_on_the_shipped_acl_serve_the_cluster_client(
    deploy_cluster: list[RedisServer], tmp_path: Path
) -> None:
    """The scale-out shape of docs/operations.md: every node runs deploy/redis.conf
    with users.acl, and cardroom's cluster client (slot map, command table,
    scripts) gets no refusal while games are played to their end."""
    broker = RedisServer(tmp_path, deploy=True, aclfile=acl_with_admin(tmp_path)).start()
    seeds = ",".join(f"127.0.0.1:{node.port}" for node in deploy_cluster)
    url = f"redis+cluster://{DEPLOY_USER}:{DEPLOY_PASSWORD}@{seeds}"
    stack = Stack(stack_env(url, queue_url=f"{broker.url}/1"), directory=tmp_path, redis=broker)
    try:
        stack.start_api(1, 8)
        stack.start_worker()
        stack.start_scheduler()
        stack.wait_healthy()
        with httpx.Client(base_url=stack.api_url, timeout=10) as http:
            games = [("murlan", {}), ("azi", {"buy_in": 30}), ("hazari", {"target": 360})]
            ids = [create_bot_game(http, stack.api_url, [stack.api_url], g, o) for g, o in games]

            def ended() -> bool:
                return all(http.get(f"/games/{i}").json()["status"] == "ended" for i in ids)

            wait_for(ended, time.monotonic() + 180, stack.logs, alive=stack.check_running)
            assert all(http.get(f"/games/{i}/verify").json()["verified"] for i in ids)
    finally:
        stack.stop()
    sent: set[str] = set()
    for node in deploy_cluster:
        admin = node.admin_client()
        assert admin.acl_log() == [], (node.port, admin.acl_log())
        stats = admin.info("commandstats")
        assert not [k for k, v in stats.items() if v["rejected_calls"]], stats
        sent |= {name.removeprefix("cmdstat_") for name in stats}
    assert {"cluster|slots", "command", "evalsha", "xadd"} <= sent
