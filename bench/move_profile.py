"""Where an accepted move's CPU goes: the move's whole cost under cProfile.

``python -m bench.move_profile [--loops 300]`` (also ``python -m
bench.throughput --profile N``): ``N`` loops of the throughput bench's three
requests (public view, seat view, move) through the Flask test client on a
``redis-server`` with the deploy's config, each move's follow-up job run in
this process as a worker runs it, under cProfile on the CPU clock. It prints
CPU and Redis round trips per accepted move by request kind and for the
worker (the job's projection, bots and timers, and RQ's own bookkeeping),
then the profiles.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import pstats
import random
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from service.devstack import RedisServer, stack_env

if TYPE_CHECKING:
    from service.config import Settings

WORKER = "worker: RQ and the job"
JOB_STEPS = ("process_game", "project_round", "_next_action", "drain_followups")
"""The workers' functions whose cumulative time the report splits the worker's by."""


class RoundTrips:
    """Counts the commands (or pipelines) redis-py sends from this process."""

    def __init__(self) -> None:
        from redis.connection import AbstractConnection

        self.count = 0
        self.cls: Any = AbstractConnection
        self.original = AbstractConnection.send_packed_command

    def __enter__(self) -> RoundTrips:
        original = self.original

        def counted(conn: Any, *args: Any, **kwargs: Any) -> Any:
            self.count += 1
            return original(conn, *args, **kwargs)

        self.cls.send_packed_command = counted
        return self

    def __exit__(self, *exc: object) -> None:
        self.cls.send_packed_command = self.original


@dataclass
class Spent:
    """CPU seconds and Redis round trips of one kind of work, and how often it ran."""

    cpu: float = 0.0
    trips: int = 0
    times: int = 0


class Session:
    """One Murlan table played in turn through the Flask test client, each
    move's follow-up job run here by a ``SimpleWorker``; once ``measuring``,
    each request and each job is profiled and charged to its kind."""

    def __init__(self, settings: Settings) -> None:
        from rq import SimpleWorker

        from service.api import create_app
        from service.runtime import Runtime
        from workers.context import install

        self.client = create_app(settings).test_client()
        self.runtime = Runtime.from_settings(settings)
        install(self.runtime)
        self.worker = SimpleWorker([self.runtime.queue], connection=self.runtime.queue_redis)
        self.worker.register_birth()
        self.rng = random.Random(1)
        self.gid, self.tokens = "", [""]
        self.api_prof = cProfile.Profile(time.process_time)
        self.worker_prof = cProfile.Profile(time.process_time)
        self.spent: dict[str, Spent] = defaultdict(Spent)
        self.trips = RoundTrips()
        self.measuring = False

    @contextlib.contextmanager
    def measured(self, kind: str, prof: cProfile.Profile) -> Iterator[None]:
        if not self.measuring:
            yield
            return
        cpu, sent = time.process_time(), self.trips.count
        prof.enable()
        try:
            yield
        finally:
            prof.disable()
            entry = self.spent[kind]
            entry.cpu += time.process_time() - cpu
            entry.trips += self.trips.count - sent
            entry.times += 1

    def call(self, kind: str, method: str, path: str, **kwargs: Any) -> Any:
        # closed like a server closes it: the follow-up job is enqueued then
        with (
            self.measured(kind, self.api_prof),
            self.client.open(path, method=method, **kwargs) as r,
        ):
            return r.get_json()

    def work(self) -> None:
        """Run the queued follow-up jobs as a worker does, one by one."""
        while len(self.runtime.queue):
            with self.measured(WORKER, self.worker_prof):
                got = self.worker.dequeue_job_and_maintain_ttl(1)
                if got is not None:
                    self.worker.execute_job(*got)

    def table(self) -> None:
        self.gid = self.call("opening tables", "POST", "/games", json={"game": "murlan"})["game_id"]
        seats = f"/games/{self.gid}/seats"
        self.tokens = [
            self.call("opening tables", "POST", seats, json={"name": f"p{i}"})["token"]
            for i in range(4)
        ]
        self.work()

    def loop(self) -> int:
        """One public view, seat view and move; 1 if a move was sent."""
        gid = self.gid
        public = self.call("public view", "GET", f"/games/{gid}")
        if public["status"] == "ended":
            self.table()
            return 0
        if not public["to_act"]:
            self.work()
            return 0
        auth = {"Authorization": f"Bearer {self.tokens[public['to_act'][0]]}"}
        view = self.call("seat view", "GET", f"/games/{gid}", headers=auth)
        body = {"move": self.rng.choice(view["legal_moves"]), "expected_version": view["version"]}
        self.call("move", "POST", f"/games/{gid}/moves", json=body, headers=auth)
        self.work()
        return 1

    def run(self, loops: int) -> int:
        """50 loops of warm-up, then ``loops`` measured: the moves they sent (at least 1)."""
        with self.trips:
            self.table()
            for _ in range(50):
                self.loop()
            self.measuring = True
            return max(1, sum(self.loop() for _ in range(loops)))


def print_profile(session: Session, loops: int, moves: int) -> None:
    ran = WORKER in session.spent  # no job in a short run: its drain took every move
    profiles = [("API", session.api_prof)] + ([("worker", session.worker_prof)] if ran else [])
    job = pstats.Stats(session.worker_prof).stats if ran else {}  # type: ignore[attr-defined]
    in_job = {
        name: sum(v[3] for k, v in job.items() if k[2] == name and "workers/jobs" in k[0])
        for name in JOB_STEPS
    }
    print(f"{loops} loops, {moves} accepted moves; per accepted move (CPU under cProfile):")
    for kind, entry in sorted(session.spent.items()):
        print(
            f"  {kind:24s} {entry.cpu / moves * 1000:6.2f} ms CPU  "
            f"{entry.trips / moves:5.2f} round trips  ({entry.times} times)"
        )
    rq_ms = (session.spent.get(WORKER, Spent()).cpu - in_job["drain_followups"]) / moves * 1000
    drain_ms = (in_job["drain_followups"] - in_job["process_game"]) / moves * 1000
    print(
        f"  of the worker's: the follow-up {in_job['process_game'] / moves * 1000:.2f} ms "
        f"(projection {in_job['project_round'] / moves * 1000:.2f} ms, bots, steps and "
        f"timers {in_job['_next_action'] / moves * 1000:.2f} ms), the drain around it "
        f"{drain_ms:.2f} ms, RQ's own {rq_ms:.2f} ms"
    )
    for name, prof in profiles:
        for key in ("cumulative", "tottime"):
            out = io.StringIO()
            pstats.Stats(prof, stream=out).sort_stats(key).print_stats(25)
            print(f"--- {name}, by {key}\n{out.getvalue()}")


def profile(loops: int) -> None:
    """The three requests through the Flask test client on a real Redis, each
    move's follow-up job run in this process as a worker runs it, under
    cProfile on the CPU clock: CPU and Redis round trips per accepted move, by
    request kind and for the worker (RQ's own work apart from the job)."""
    from service.config import load_settings

    directory = Path(tempfile.mkdtemp(prefix="cardroom-profile-"))
    server = RedisServer(directory, deploy=True)
    server.start()
    try:
        env = stack_env(server.url)
        rates = {k.removeprefix("CARDROOM_").lower(): v for k, v in env.items() if "LIMIT" in k}
        # One table played in turn: a drain has nothing to wait for after each move.
        settings = load_settings(
            redis_url=server.url, log_level="WARNING", followup_linger_s=0, **rates
        )
        session = Session(settings)
        moves = session.run(loops)
        print_profile(session, loops, moves)
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--loops", type=int, default=300, help="loops profiled")
    profile(parser.parse_args().loops)


if __name__ == "__main__":
    main()
