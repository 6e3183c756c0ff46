"""The throughput bench's processes: cardroom as deployed, and the floor beside it.

On loopback and free ports: a ``redis-server`` with ``deploy/redis.conf``
(AOF, ``appendfsync always``); cardroom under gunicorn with
``deploy/gunicorn.conf.py`` (2 API processes, 16 threads each) and 2
``cardroom worker`` processes, the rate limiter on with every budget out of
reach; and ``bench/floorapp.py`` under the same gunicorn settings. A
:class:`Rig` knows each system's pids by kind, to read their CPU.
"""

from __future__ import annotations

import contextlib
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx

from bench.cpu import cpu_seconds
from service.devstack import (
    BIN,
    GUNICORN_CONF,
    Proc,
    RedisServer,
    Stack,
    free_port,
    stack_env,
)


@dataclass
class Rig:
    directory: Path
    redis: RedisServer
    stack: Stack
    floor: Proc
    floor_url: str

    def pids(self, system: str) -> dict[str, list[int]]:
        api = self.stack.apis[0] if system == "cardroom" else self.floor
        assert api is not None and self.redis.proc is not None
        out = {"api": [api.pid, *api.children()], "redis": [self.redis.proc.pid]}
        out["worker"] = [w.pid for w in self.stack.workers] if system == "cardroom" else []
        return out

    def cpu(self, system: str) -> dict[str, float]:
        pids = self.pids(system).items()
        return {kind: cpu_seconds(group, children=True) for kind, group in pids}

    def wait_projected(self, games: set[str], timeout_s: float = 60) -> None:
        """Until every table's snapshot has reached its stream's last version."""
        client = self.redis.client()
        deadline = time.monotonic() + timeout_s
        try:
            while time.monotonic() < deadline:
                pipe = client.pipeline(transaction=False)
                for gid in games:
                    pipe.xrevrange(f"cardroom:{{{gid}}}:events", count=1)
                    pipe.hget(f"cardroom:{{{gid}}}:snapshot", "v")
                replies = pipe.execute()
                behind = [
                    1
                    for last, v in zip(replies[::2], replies[1::2], strict=True)
                    if last and (v is None or int(v) < int(last[0][0].split(b"-")[0]))
                ]
                if not behind:
                    return
                time.sleep(0.01)
            print(f"  (the workers had not projected every table after {timeout_s:.0f} s)")
        finally:
            client.close()


@contextlib.contextmanager
def rig() -> Iterator[Rig]:
    directory = Path(tempfile.mkdtemp(prefix="cardroom-throughput-"))
    server = RedisServer(directory, deploy=True)  # the deploy's config: AOF, fsync always
    out_of_reach = {"CARDROOM_LOG_LEVEL": "WARNING", "CARDROOM_BOT_DELAY_S": "0"}
    stack = Stack(stack_env(server.url, **out_of_reach), directory=directory, redis=server)
    floor: Proc | None = None
    try:
        server.start()
        stack.start_api(2, 16)
        for _ in range(2):
            stack.start_worker()
        port = free_port()
        env = {
            **stack.env,
            "CARDROOM_BIND": f"127.0.0.1:{port}",
            "CARDROOM_API_PROCESSES": "2",
            "CARDROOM_API_THREADS": "16",
            "FLOOR_REDIS_URL": server.url,
        }
        args = [str(BIN / "gunicorn"), "-c", str(GUNICORN_CONF), "bench.floorapp:create_app()"]
        floor = Proc("floor", args, directory / "floor.log", env).start()
        stack.wait_healthy()
        stack.wait_api_workers(2)
        floor_url = f"http://127.0.0.1:{port}"
        wait_floor(floor, floor_url)
        yield Rig(directory, server, stack, floor, floor_url)
    finally:
        if floor is not None:
            floor.stop(10)
        stack.stop()


def wait_floor(floor: Proc, url: str, timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    with httpx.Client(base_url=url, timeout=2) as http:
        while time.monotonic() < deadline:
            if not floor.running:
                raise SystemExit(f"the floor app exited:\n{floor.log_tail()}")
            with contextlib.suppress(httpx.HTTPError):
                if http.get("/floor/0").status_code == 200 and len(floor.children()) >= 2:
                    return
            time.sleep(0.05)
    raise SystemExit("the floor app did not answer")
