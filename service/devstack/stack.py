"""The service as local processes: :func:`stack_env` (the variables every
process shares), :class:`Stack` (API processes under gunicorn with
``deploy/gunicorn.conf.py``, workers, schedulers and any other command),
:func:`running_stack` (a whole deployment for the duration of a ``with``) and
:func:`create_bot_game` (a table of bots opened over HTTP).

Everything runs on 127.0.0.1 and free ports, in a private directory, as the
deployment runs it, configured through ``CARDROOM_*`` variables only. The
machine's shared Redis on port 6379 is never touched: only a caller that
passes its URL (to :func:`stack_env` or a process's environment) uses it.

HTTP goes through ``httpx`` (a test extra), imported where it is used.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import time
from collections.abc import Iterable, Iterator
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from service.devstack.procs import (
    CARDROOM,
    GUNICORN,
    ROOT,
    Proc,
    free_port,
    private_directory,
    stop_all,
    wait_for,
)
from service.devstack.redis_server import USERS_ACL, RedisServer

if TYPE_CHECKING:
    import httpx

GUNICORN_CONF: Final = ROOT / "deploy" / "gunicorn.conf.py"


def stack_env(
    redis_url: str,
    *,
    cluster: bool = False,
    queue_url: str | None = None,
    queue_name: str | None = None,
    **extra: str,
) -> dict[str, str]:
    """The variables every process of a stack shares: this process's environment
    (``PYTHONPATH`` included) without any ``CARDROOM_*`` of its own, then the
    store's and the queue's Redis, no bot delay, quiet logs, the rate limit out
    of the way, a short keep-alive on live streams and no metrics port for the
    workers and schedulers; ``extra`` last."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CARDROOM_")}
    env.update(
        {
            "CARDROOM_REDIS_URL": redis_url,
            "CARDROOM_REDIS_CLUSTER": "1" if cluster else "0",
            "CARDROOM_BOT_DELAY_S": "0",
            "CARDROOM_LOG_LEVEL": "WARNING",
            "CARDROOM_RATE_LIMIT": "1000000/second",
            **{
                f"CARDROOM_LIMIT_{b}": "1000000/second"
                for b in ("MOVES", "GAMES", "SEATS", "READS")
            },
            "CARDROOM_STREAM_KEEPALIVE_S": "1",
            # many workers on one host: no metrics port unless a caller gives one
            "CARDROOM_WORKER_METRICS_PORT": "0",
            "CARDROOM_SCHEDULER_METRICS_PORT": "0",
        }
    )
    if queue_url is not None:
        env["CARDROOM_QUEUE_URL"] = queue_url
    if queue_name is not None:
        env["CARDROOM_QUEUE_NAME"] = queue_name
    env.update(extra)
    return env


class Stack:
    """API processes, workers, schedulers and other commands sharing one
    environment and one directory (their logs), with a Redis of its own when
    ``redis`` is given.

    Processes are named ``api-N``, ``worker-N``, ``scheduler-N`` or after the
    kind given to :meth:`start_process` (N counts from 0 per kind and is never
    reused). :meth:`stop` ends them all, Redis
    last; it also runs at interpreter exit.
    """

    def __init__(
        self,
        env: dict[str, str],
        *,
        directory: Path | None = None,
        redis: RedisServer | None = None,
        keep: bool = False,
    ) -> None:
        self.env = env
        self.directory = directory or private_directory("cardroom-stack-")
        self.keep = keep
        self._redis = redis
        self.apis: list[Proc] = []
        self.api_urls: list[str] = []
        self.workers: list[Proc] = []
        self.schedulers: list[Proc] = []
        self.others: list[Proc] = []
        self._counts: dict[str, int] = {}
        atexit.register(self.stop)

    @property
    def redis(self) -> RedisServer:
        """The stack's own Redis (a stack on someone else's Redis has none)."""
        if self._redis is None:
            raise RuntimeError("this stack runs on a Redis it did not start")
        return self._redis

    @property
    def api_url(self) -> str:
        """The first API process's base URL, or ``""`` when none was started."""
        return self.api_urls[0] if self.api_urls else ""

    @property
    def procs(self) -> list[Proc]:
        """Every process of the stack but Redis."""
        return [*self.apis, *self.schedulers, *self.workers, *self.others]

    def start_process(self, kind: str, args: list[str], **extra_env: str) -> Proc:
        """Any command as a process of the stack, named ``kind-N``, with the
        stack's environment and ``extra_env``; listed in :attr:`others`."""
        proc = self._proc(kind, args, {**self.env, **extra_env})
        self.others.append(proc)
        return proc

    def _proc(self, kind: str, args: list[str], env: dict[str, str]) -> Proc:
        n = self._counts.get(kind, 0)
        self._counts[kind] = n + 1
        name = f"{kind}-{n}"
        return Proc(name, args, self.directory / f"{name}.log", env).start()

    def start_api(self, processes: int = 1, threads: int = 8, **extra_env: str) -> str:
        """gunicorn with the deploy's config on a free port, ``processes`` gunicorn
        workers of ``threads`` threads; returns its base URL."""
        port = free_port()
        env = {
            **self.env,
            "CARDROOM_BIND": f"127.0.0.1:{port}",
            "CARDROOM_API_PROCESSES": str(processes),
            "CARDROOM_API_THREADS": str(threads),
            **extra_env,
        }
        args = [GUNICORN, "-c", str(GUNICORN_CONF), "service.api:create_app()"]
        self.apis.append(self._proc("api", args, env))
        url = f"http://127.0.0.1:{port}"
        self.api_urls.append(url)
        return url

    def start_worker(self, **extra_env: str) -> Proc:
        """One ``cardroom worker``."""
        proc = self._proc("worker", [CARDROOM, "worker"], {**self.env, **extra_env})
        self.workers.append(proc)
        return proc

    def start_scheduler(self, interval_s: int = 1, **extra_env: str) -> Proc:
        """One ``cardroom scheduler`` (the reconciler), running every ``interval_s``."""
        args = [CARDROOM, "scheduler", "--interval", str(interval_s)]
        proc = self._proc("scheduler", args, {**self.env, **extra_env})
        self.schedulers.append(proc)
        return proc

    def wait_healthy(self, timeout_s: float = 60) -> None:
        """Until every API process answers ``/healthz`` (and every process still runs)."""
        import httpx  # a test extra: only the tests and the benchmarks get here

        deadline = time.monotonic() + timeout_s
        with httpx.Client(timeout=2) as http:
            for url in self.api_urls:
                wait_for(
                    partial(healthy, http, url),
                    deadline,
                    partial(self._unhealthy, url),
                    alive=self.check_running,
                )

    def _unhealthy(self, url: str) -> str:
        return f"{url} did not become healthy:\n{self.logs()}"

    def wait_api_workers(self, count: int, timeout_s: float = 60, *, api: int = 0) -> list[int]:
        """Until gunicorn's master of API process ``api`` has ``count`` worker
        processes; their pids."""
        master = self.apis[api]
        wait_for(
            lambda: len(master.children()) >= count,
            time.monotonic() + timeout_s,
            lambda: f"gunicorn has {len(master.children())} workers, not {count}",
            alive=self.check_running,
        )
        return master.children()

    def check_running(self) -> None:
        """Raise if a process of the stack has exited (one killed on purpose and
        removed from its list is not looked at)."""
        for proc in self.procs:
            if proc.started and not proc.running:
                raise RuntimeError(
                    f"{proc.name} exited with {proc.returncode}:\n{proc.log_tail(30)}"
                )

    def logs(self, lines: int = 15) -> str:
        """The tail of every process's log, Redis's too."""
        procs = [*self.procs, *([self._redis.proc] if self._redis is not None else [])]
        return "\n".join(f"--- {p.name}\n{p.log_tail(lines)}" for p in procs)

    def stop(self) -> None:
        """Every process (SIGTERM, SIGKILL after 10 s), then Redis (a clean
        shutdown); the directory goes too unless ``keep`` (print :meth:`logs`
        first to keep what they say). Safe to call twice."""
        stop_all(self.procs, 10)
        if self._redis is not None:
            self._redis.stop()
        if not self.keep:
            shutil.rmtree(self.directory, ignore_errors=True)
        atexit.unregister(self.stop)


def healthy(http: httpx.Client, url: str) -> bool:
    """Whether ``url`` answers ``/healthz`` with 200."""
    import httpx

    with contextlib.suppress(httpx.HTTPError):
        return http.get(f"{url}/healthz").status_code == 200
    return False


@contextlib.contextmanager
def running_stack(
    *,
    workers: int = 2,
    scheduler: bool = True,
    api: bool = True,
    api_processes: int = 2,
    api_threads: int = 16,
    keep: bool = False,
    redis_options: Iterable[str] = (),
    aclfile: Path = USERS_ACL,
    **env: str,
) -> Iterator[Stack]:
    """A whole deployment, started (Redis with the deploy's config and ACL first,
    then the API, the workers and the scheduler, healthy) and stopped on exit.
    ``redis_options`` are further directives for Redis's command line;
    ``aclfile`` stands in for ``deploy/users.acl``; ``env`` adds or overrides
    ``CARDROOM_*`` variables."""
    directory = private_directory("cardroom-stack-")
    server = RedisServer(directory, *redis_options, deploy=True, aclfile=aclfile)
    env = {**stack_env(server.url), **env}
    stack = Stack(env, directory=directory, redis=server, keep=keep)
    try:
        server.start()
        if api:
            stack.start_api(api_processes, api_threads)
        for _ in range(workers):
            stack.start_worker()
        if scheduler:
            stack.start_scheduler()
        if api:
            stack.wait_healthy()
        yield stack
    finally:
        stack.stop()


def create_bot_game(
    http: httpx.Client, create_url: str, seat_urls: list[str], game: str, options: dict[str, Any]
) -> str:
    """Open a table at ``create_url`` and fill it with bots, one seat per
    request, going round ``seat_urls``; the last seat starts the game."""
    body: dict[str, Any] = {"game": game, "options": options}
    if game == "azi":
        body["seats"] = 3
    r = http.post(f"{create_url}/games", json=body)
    assert r.status_code == 201, r.text
    created = r.json()
    for seat in range(created["seats"]):
        url = f"{seat_urls[seat % len(seat_urls)]}/games/{created['game_id']}/seats"
        r = http.post(url, json={"name": f"bot{seat}", "bot": True})
        assert r.status_code == 201, r.text
    return str(created["game_id"])
