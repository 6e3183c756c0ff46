"""Throughput of accepted moves on the deployment's shape, next to a bare Flask + Redis floor.

Run ``.venv/bin/python -m bench.throughput`` (about two minutes; ``--seconds 8
--rounds 1`` for a quick look). It starts, on loopback and free ports:

- its own ``redis-server`` with ``deploy/redis.conf`` (AOF, ``appendfsync always``);
- cardroom as deployed: gunicorn with ``deploy/gunicorn.conf.py`` (2 API
  processes, gthread, 16 threads) and 2 ``cardroom worker`` processes, the
  rate limiter on with every budget set out of reach;
- the floor: ``bench/floorapp.py`` under the same gunicorn settings, doing
  the same three requests with the least work (two ``HGETALL`` of a small
  hash, one ``XADD``).

Both are driven by the same closed-loop client: ``--tables`` threads, each
with its own keep-alive connection, each looping *public view -> seat view
-> move* on its own table. The client plays all four seats of each Murlan
table itself, so every accepted move is an HTTP move through the API and
its follow-up work (projection, deals) lands on the workers; bots would
make moves the API never sees and hide the request path being measured.
A turn with nobody to act (the workers are dealing the next hand) costs a
public view and is counted as a loop, not a move. A finished game is
replaced by a new table (not counted).

Phases alternate in one run, floor then cardroom, ``--rounds`` times, so
load on the machine hits both alike. After each cardroom phase the run
waits until the workers have projected every table (their CPU until then
is counted). Printed per phase and in total: accepted moves/s (floor:
loops/s) and their ratio; CPU per accepted move of each kind of process
(API: gunicorn's master and workers; workers; Redis; from
``/proc/<pid>/stat``, children included), and API + workers per move in
units of the floor's API CPU per loop (CPU time per unit swings with the
machine's load, the floor's with it); p50/p99 of each request kind;
and the projection lag, sampled on one move in five (taken before the move is
sent): from the move's entry time (the ms part of its stream id) until the
game's snapshot reaches its version, polled every 2 ms (a move its append
projected shows as the time between its entry and the next poll). It asserts
nothing.

``--profile N`` instead profiles a move's whole cost: ``N`` loops of the
same three requests through the Flask test client against a real Redis
(this bench's own), each move's follow-up job run in the same process as a
worker runs it, under cProfile on the CPU clock; it prints CPU and Redis
round trips per accepted move by request kind and for the worker (the job's
projection, bots and timers, and RQ's own bookkeeping), then the profiles.

``--rq-floor N`` measures the floor of a worker's share: RQ's own CPU per
job, for ``N`` jobs that do nothing, enqueued with cardroom's job options and
run by one ``SimpleWorker`` in this process.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import os
import pstats
import random
import statistics
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import httpx
import redis

from tests.stack import (
    BIN,
    GUNICORN_CONF,
    Proc,
    RedisServer,
    Stack,
    free_port,
    stack_env,
)

TICKS: Final = os.sysconf("SC_CLK_TCK")
KINDS: Final = ("api", "worker", "redis")
LAG_EVERY: Final = 5
LAG_POLL_S: Final = 0.002
SAMPLE_GIVE_UP_S: Final = 5.0
"""A sampled move whose version no entry took in this long was refused."""


def cpu_seconds(pid: int) -> float:
    """User + system CPU of ``pid`` and its reaped children, in seconds (0 if gone)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    fields = text.rsplit(")", 1)[1].split()
    return sum(int(f) for f in fields[11:15]) / TICKS


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


@dataclass
class Phase:
    name: str
    seconds: float = 0.0
    loops: int = 0
    moves: int = 0
    refused: int = 0
    cpu: dict[str, float] = field(default_factory=dict)
    latency_ms: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    lag_ms: list[float] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def done(self) -> int:
        """Accepted moves (cardroom) or loops (floor): what the rate is counted in."""
        return self.moves if self.name == "cardroom" else self.loops

    @property
    def rate(self) -> float:
        return self.done / self.seconds if self.seconds else 0.0

    def cpu_ms_per(self, kind: str) -> float:
        return self.cpu.get(kind, 0.0) * 1000 / max(1, self.done)


class Timer:
    def __init__(self, phase: Phase) -> None:
        self.phase = phase
        self.local: dict[str, list[float]] = defaultdict(list)

    @contextlib.contextmanager
    def __call__(self, kind: str) -> Iterator[None]:
        t = time.perf_counter()
        yield
        self.local[kind].append((time.perf_counter() - t) * 1000)

    def flush(self) -> None:
        with self.phase.lock:
            for kind, values in self.local.items():
                self.phase.latency_ms[kind].extend(values)


class LagSampler(threading.Thread):
    """Polls the streams and snapshots of sampled moves until each snapshot
    reaches its move's version.

    A move is sampled before it is sent, so a snapshot written with the append
    itself is seen as soon as its entry is (within one poll), not once the
    answer is back at the client."""

    def __init__(self, client: redis.Redis, phase: Phase) -> None:
        super().__init__(daemon=True)
        self.client = client
        self.phase = phase
        self.pending: list[tuple[str, int]] = []
        self.waiting: list[tuple[str, int, int | None, float]] = []
        """(game, version, its entry's ms once appended, when sampled)."""
        self.lock = threading.Lock()
        self.stopped = threading.Event()

    def add(self, game_id: str, version: int) -> None:
        """Sample the event about to take ``version`` of ``game_id``."""
        with self.lock:
            self.pending.append((game_id, version))

    def run(self) -> None:
        while not self.stopped.is_set() or self.pending or self.waiting:
            with self.lock:
                new, self.pending = self.pending, []
            self.waiting.extend((gid, version, None, time.monotonic()) for gid, version in new)
            if self.waiting:
                self._poll()
            if self.stopped.is_set() and self.waiting and time.monotonic() > self.give_up:
                break
            time.sleep(LAG_POLL_S)

    def _poll(self) -> None:
        pipe = self.client.pipeline(transaction=False)
        for gid, version, at_ms, _ in self.waiting:
            if at_ms is None:
                pipe.xrange(f"cardroom:{{{gid}}}:events", str(version), str(version))
            pipe.hget(f"cardroom:{{{gid}}}:snapshot", "v")
        replies = iter(pipe.execute())
        now_ms = time.time() * 1000
        still = []
        for gid, version, at_ms, since in self.waiting:
            if at_ms is None:
                found = next(replies)
                at_ms = int(found[0][0].split(b"-")[1]) if found else None
            v = next(replies)
            if at_ms is None:
                if time.monotonic() - since < SAMPLE_GIVE_UP_S:  # refused: never appended
                    still.append((gid, version, at_ms, since))
            elif v is not None and int(v) >= version:
                self.phase.lag_ms.append(max(0.0, now_ms - at_ms))
            else:
                still.append((gid, version, at_ms, since))
        self.waiting = still

    def finish(self, timeout_s: float = 60) -> None:
        self.give_up = time.monotonic() + timeout_s
        self.stopped.set()
        self.join(timeout_s + 5)


# -- the closed-loop client --------------------------------------------------------------------
def new_table(http: httpx.Client) -> tuple[str, list[str]]:
    gid = http.post("/games", json={"game": "murlan"}).json()["game_id"]
    tokens = [
        http.post(f"/games/{gid}/seats", json={"name": f"p{i}"}).json()["token"] for i in range(4)
    ]
    return gid, tokens


def cardroom_client(
    base: str, phase: Phase, until: float, seed: int, sampler: LagSampler | None, games: set[str]
) -> None:
    rng = random.Random(seed)
    timer = Timer(phase)
    loops = moves = refused = 0
    with httpx.Client(base_url=base, timeout=30) as http:
        gid, tokens = new_table(http)
        games.add(gid)
        while time.monotonic() < until:
            loops += 1
            with timer("public view"):
                public = http.get(f"/games/{gid}").json()
            if public["status"] == "ended":
                gid, tokens = new_table(http)
                games.add(gid)
                continue
            if not public["to_act"]:
                continue  # the workers are dealing the next hand
            auth = {"Authorization": f"Bearer {tokens[public['to_act'][0]]}"}
            with timer("seat view"):
                view = http.get(f"/games/{gid}", headers=auth).json()
            if not view.get("legal_moves"):
                continue
            body = {"move": rng.choice(view["legal_moves"]), "expected_version": view["version"]}
            if sampler is not None and loops % LAG_EVERY == 0:
                sampler.add(gid, view["version"] + 1)
            with timer("move"):
                r = http.post(f"/games/{gid}/moves", json=body, headers=auth)
            if r.status_code != 201:
                refused += 1
                continue
            moves += 1
    timer.flush()
    with phase.lock:
        phase.loops += loops
        phase.moves += moves
        phase.refused += refused


def floor_client(base: str, phase: Phase, until: float, table: int) -> None:
    timer = Timer(phase)
    loops = 0
    body = {"move": {"type": "play", "cards": ["3C", "3D"]}, "expected_version": 0}
    with httpx.Client(base_url=base, timeout=30) as http:
        while time.monotonic() < until:
            with timer("public view"):
                http.get(f"/floor/{table}").json()
            with timer("seat view"):
                http.get(f"/floor/{table}/seat").json()
            body["expected_version"] = loops
            with timer("move"):
                r = http.post(f"/floor/{table}/moves", json=body)
            assert r.status_code == 201, r.text
            loops += 1
    timer.flush()
    with phase.lock:
        phase.loops += loops


# -- the processes --------------------------------------------------------------------------
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
        return {kind: sum(map(cpu_seconds, pids)) for kind, pids in self.pids(system).items()}

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


def run_phase(setup: Rig, system: str, tables: int, seconds: float, seed: int) -> Phase:
    phase = Phase(system)
    sampler = None
    games: set[str] = set()
    if system == "cardroom":
        sampler = LagSampler(setup.redis.client(), phase)
        sampler.start()
    before = setup.cpu(system)
    t0 = time.monotonic()
    until = t0 + seconds
    threads: list[threading.Thread] = []
    for n in range(tables):
        target: Callable[..., None]
        if system == "cardroom":
            target, args = (
                cardroom_client,
                (setup.stack.api_url, phase, until, seed + n, sampler, games),
            )
        else:
            target, args = floor_client, (setup.floor_url, phase, until, n)
        threads.append(threading.Thread(target=target, args=args, daemon=True))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    phase.seconds = time.monotonic() - t0
    if system == "cardroom":
        setup.wait_projected(games)
        assert sampler is not None
        sampler.finish()
    after = setup.cpu(system)
    phase.cpu = {kind: after[kind] - before[kind] for kind in KINDS}
    return phase


# -- the report ----------------------------------------------------------------------------------
def describe(phase: Phase) -> str:
    unit = "accepted moves/s" if phase.name == "cardroom" else "loops/s"
    cpu = "  ".join(f"{k} {phase.cpu_ms_per(k):.2f}" for k in KINDS)
    total = sum(phase.cpu_ms_per(k) for k in KINDS)
    extra = f", {phase.refused} refused" if phase.refused else ""
    return (
        f"{phase.name:8s} {phase.rate:7.1f} {unit} ({phase.done} in {phase.seconds:.1f} s{extra}); "
        f"CPU ms each: {cpu}  total {total:.2f}"
    )


def report(phases: list[Phase], tables: int) -> None:
    floors = [p for p in phases if p.name == "floor"]
    rooms = [p for p in phases if p.name == "cardroom"]

    def merged(group: list[Phase]) -> Phase:
        out = Phase(group[0].name)
        for p in group:
            out.seconds += p.seconds
            out.loops += p.loops
            out.moves += p.moves
            out.refused += p.refused
            for k in KINDS:
                out.cpu[k] = out.cpu.get(k, 0.0) + p.cpu.get(k, 0.0)
            for kind, values in p.latency_ms.items():
                out.latency_ms[kind].extend(values)
            out.lag_ms.extend(p.lag_ms)
        return out

    floor, room = merged(floors), merged(rooms)
    print(f"\n=== totals ({tables} tables, closed loop, keep-alive)")
    print(describe(floor))
    print(describe(room))
    ratio = room.rate / floor.rate if floor.rate else float("nan")
    cpu_room = sum(room.cpu_ms_per(k) for k in KINDS)
    cpu_floor = sum(floor.cpu_ms_per(k) for k in KINDS)
    print(f"ratio: {ratio:.2f} (cardroom accepted moves/s over floor loops/s)")
    api_only = room.cpu_ms_per("api") + room.cpu_ms_per("worker")
    print(
        f"CPU per accepted move: API {room.cpu_ms_per('api'):.2f} ms, workers "
        f"{room.cpu_ms_per('worker'):.2f} ms, Redis {room.cpu_ms_per('redis'):.2f} ms "
        f"(API + workers {api_only:.2f} ms); floor {cpu_floor:.2f} ms per loop, "
        f"cardroom {cpu_room:.2f} ms per move"
    )
    floor_api = floor.cpu_ms_per("api")
    if floor_api:
        # CPU time per unit swings with the machine's load; the floor's, measured in
        # the same run, swings with it: the same figure in floor loops holds up better.
        print(
            f"API + workers per move in the floor's API per loop ({floor_api:.2f} ms): "
            f"{api_only / floor_api:.2f}"
        )
    for p in (floor, room):
        for kind in ("public view", "seat view", "move"):
            values = p.latency_ms.get(kind, [])
            print(
                f"  {p.name:8s} {kind:11s} p50 {statistics.median(values) if values else 0:6.2f} ms"
                f"  p99 {percentile(values, 0.99):6.2f} ms  (n={len(values)})"
            )
    lag = room.lag_ms
    print(
        f"projection lag (entry -> snapshot at its version), {len(lag)} samples: "
        f"p50 {percentile(lag, 0.5):.1f} ms  p99 {percentile(lag, 0.99):.1f} ms"
    )


# -- the profile -------------------------------------------------------------------------------
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


def profile(loops: int) -> None:
    """The three requests through the Flask test client on a real Redis, each
    move's follow-up job run in this process as a worker runs it, under
    cProfile on the CPU clock: CPU and Redis round trips per accepted move, by
    request kind and for the worker (RQ's own work apart from the job)."""
    from rq import SimpleWorker

    from service.api import create_app
    from service.config import load_settings
    from service.runtime import Runtime
    from workers.context import install

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
        client = create_app(settings).test_client()
        runtime = Runtime.from_settings(settings)
        install(runtime)
        worker = SimpleWorker([runtime.queue], connection=runtime.queue_redis)
        worker.register_birth()
        rng = random.Random(1)
        gid, tokens = "", [""]
        api_prof = cProfile.Profile(time.process_time)
        worker_prof = cProfile.Profile(time.process_time)
        spent: dict[str, Spent] = defaultdict(Spent)
        trips = RoundTrips()
        measuring = False

        @contextlib.contextmanager
        def measured(kind: str, prof: cProfile.Profile) -> Iterator[None]:
            if not measuring:
                yield
                return
            cpu, sent = time.process_time(), trips.count
            prof.enable()
            try:
                yield
            finally:
                prof.disable()
                entry = spent[kind]
                entry.cpu += time.process_time() - cpu
                entry.trips += trips.count - sent
                entry.times += 1

        def call(kind: str, method: str, path: str, **kwargs: Any) -> Any:
            # closed like a server closes it: the follow-up job is enqueued then
            with measured(kind, api_prof), client.open(path, method=method, **kwargs) as r:
                return r.get_json()

        def work() -> None:
            """Run the queued follow-up jobs as a worker does, one by one."""
            while len(runtime.queue):
                with measured("worker: RQ and the job", worker_prof):
                    got = worker.dequeue_job_and_maintain_ttl(1)
                    if got is not None:
                        worker.execute_job(*got)

        def table() -> None:
            nonlocal gid, tokens
            gid = call("opening tables", "POST", "/games", json={"game": "murlan"})["game_id"]
            tokens = [
                call("opening tables", "POST", f"/games/{gid}/seats", json={"name": f"p{i}"})[
                    "token"
                ]
                for i in range(4)
            ]
            work()

        def loop() -> int:
            public = call("public view", "GET", f"/games/{gid}")
            if public["status"] == "ended":
                table()
                return 0
            if not public["to_act"]:
                work()
                return 0
            auth = {"Authorization": f"Bearer {tokens[public['to_act'][0]]}"}
            view = call("seat view", "GET", f"/games/{gid}", headers=auth)
            body = {"move": rng.choice(view["legal_moves"]), "expected_version": view["version"]}
            call("move", "POST", f"/games/{gid}/moves", json=body, headers=auth)
            work()
            return 1

        with trips:
            table()
            for _ in range(50):
                loop()
            measuring = True
            moves = max(1, sum(loop() for _ in range(loops)))
        job = pstats.Stats(worker_prof).stats  # type: ignore[attr-defined]
        in_job = {
            name: sum(v[3] for k, v in job.items() if k[2] == name and "workers/jobs" in k[0])
            for name in ("process_game", "project_round", "_next_action", "drain_followups")
        }
        print(f"{loops} loops, {moves} accepted moves; per accepted move (CPU under cProfile):")
        for kind, entry in sorted(spent.items()):
            print(
                f"  {kind:24s} {entry.cpu / moves * 1000:6.2f} ms CPU  "
                f"{entry.trips / moves:5.2f} round trips  ({entry.times} times)"
            )
        rq_ms = (spent["worker: RQ and the job"].cpu - in_job["drain_followups"]) / moves * 1000
        drain_ms = (in_job["drain_followups"] - in_job["process_game"]) / moves * 1000
        print(
            f"  of the worker's: the follow-up {in_job['process_game'] / moves * 1000:.2f} ms "
            f"(projection {in_job['project_round'] / moves * 1000:.2f} ms, bots, steps and "
            f"timers {in_job['_next_action'] / moves * 1000:.2f} ms), the drain around it "
            f"{drain_ms:.2f} ms, RQ's own {rq_ms:.2f} ms"
        )
        for name, prof in (("API", api_prof), ("worker", worker_prof)):
            for key in ("cumulative", "tottime"):
                out = io.StringIO()
                pstats.Stats(prof, stream=out).sort_stats(key).print_stats(25)
                print(f"--- {name}, by {key}\n{out.getvalue()}")
    finally:
        server.stop()


def nothing(game_id: str) -> None:
    """The job :func:`rq_floor` enqueues: RQ's own work, and nothing else."""


def rq_floor(jobs: int) -> None:
    """RQ's own CPU per job on this bench's Redis: ``jobs`` jobs that do nothing,
    enqueued with cardroom's job options, then run by one ``SimpleWorker`` in
    burst mode; CPU of this process on its clock, per job, for each side."""
    import rq
    from rq import Queue, SimpleWorker

    from service.config import load_settings
    from service.runtime import Runtime

    directory = Path(tempfile.mkdtemp(prefix="cardroom-rq-floor-"))
    server = RedisServer(directory, deploy=True)
    server.start()
    try:
        runtime = Runtime.from_settings(load_settings(redis_url=server.url, log_level="WARNING"))
        queue = Queue("rq-floor", connection=runtime.queue_redis)
        for _ in range(2):  # the first pass warms up; the second is printed
            cpu = time.process_time()
            for i in range(jobs):
                queue.enqueue(
                    "bench.throughput.nothing", f"g{i}", **runtime.job_options(f"g{i}", i)
                )
            enqueued = (time.process_time() - cpu) / jobs * 1000
            worker = SimpleWorker([queue], connection=runtime.queue_redis)
            cpu = time.process_time()
            worker.work(burst=True, logging_level="WARNING")
            ran = (time.process_time() - cpu) / jobs * 1000
        print(
            f"RQ {rq.__version__}, redis-py {redis.__version__}: {jobs} jobs that do nothing; "
            f"CPU per job: enqueue {enqueued:.2f} ms, worker {ran:.2f} ms"
        )
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=8, help="tables played at once (threads)")
    parser.add_argument("--seconds", type=float, default=20, help="length of each phase")
    parser.add_argument("--rounds", type=int, default=2, help="floor/cardroom pairs")
    parser.add_argument("--warmup", type=float, default=3, help="untimed warm-up of each")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="one round of 8 s (make bench)")
    parser.add_argument("--profile", type=int, default=0, metavar="N", help="profile N loops")
    parser.add_argument(
        "--rq-floor", type=int, default=0, metavar="N", help="RQ's own CPU per job, over N jobs"
    )
    args = parser.parse_args()
    if args.rq_floor:
        rq_floor(args.rq_floor)
        return
    if args.profile:
        profile(args.profile)
        return
    if args.quick:
        args.seconds, args.rounds = 8, 1
    with rig() as setup:
        run_phase(setup, "floor", args.tables, args.warmup, args.seed)
        run_phase(setup, "cardroom", args.tables, args.warmup, args.seed)
        phases = []
        for r in range(args.rounds):
            for system in ("floor", "cardroom"):
                phase = run_phase(setup, system, args.tables, args.seconds, args.seed + 100 * r)
                print(f"round {r + 1} {describe(phase)}", flush=True)
                phases.append(phase)
        report(phases, args.tables)


if __name__ == "__main__":
    main()
