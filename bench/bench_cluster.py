"""Scale-out figures: moves through 1 and 2 API/worker pairs on a Redis Cluster,
and appends on the cluster next to one Redis.

Run ``.venv/bin/python -m bench.bench_cluster`` (about two minutes) or with
``--quick`` (under a minute). It starts everything it uses on free loopback
ports and stops it at the end: a 3-master Redis Cluster and one standalone
``redis-server``, both without persistence; the standalone server is the
single Redis of the comparison and the RQ broker of the pairs. Figures
only; nothing is asserted.

- *Appends*: ``--writers`` processes (default 2), each appending the events
  of a recorded Murlan game, one ``EventStore.append`` per event (Lua
  script, version check, encoding), to games of its own, for rounds of a few
  seconds that alternate between the single Redis and the cluster (ABBA, so
  load on the machine hits both alike). Events per second over all rounds,
  and the median of each pair of rounds' ratio.
- *Moves*: 1, then 2 pairs of one API process (gunicorn, ``gthread``, one
  worker) and one ``cardroom worker``, on the cluster. ``--clients`` scripted
  human clients (threads of this process, spread over the API processes)
  each play all four seats of a Murlan table by random legal moves over
  HTTP: a seat's view, then ``POST /games/{id}/moves`` with its expected
  version; a new table when one ends. The deals between hands are the
  workers' system steps, so a client waits for them as a player would.
  Accepted moves (201) per second and the POST's p50/p99 latency over a
  measured window after a warm-up, and the CPU time per accepted move of
  the API processes, the workers, the cluster's servers and the broker (from
  ``/proc``): what a move costs, which is what capacity on other machines
  follows from. The clients' own CPU is shown too, because on a small
  machine they compete with the servers.

The appends also report the writers' CPU per event and the time inside
Redis per append script (``INFO commandstats``).
"""

from __future__ import annotations

import argparse
import dataclasses
import multiprocessing
import os
import random
import resource
import statistics
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from bench.cpu import cpu_seconds
from bench.stats import percentile
from service.devstack import (
    LocalCluster,
    Stack,
    new_game,
    play,
    stack_env,
    start_cluster,
    start_standalone,
)
from service.engines import table
from service.engines.base import Event
from service.runtime import connect
from service.store import EventStore


# -- appends ---------------------------------------------------------------------------
def recorded_events(seed: int = 7) -> list[Event]:
    rng = random.Random(seed)
    return play(new_game("murlan", rng=rng, game_id="bench-source"), rng).events


def _writer(
    url: str,
    cluster: bool,
    events: list[Event],
    prefix: str,
    seconds: float,
    start: Any,
    out: Any,
) -> None:
    """One writer process: append for ``seconds`` after ``start`` is set."""
    store = EventStore(connect(url, cluster=cluster))
    created = events[0]
    assert isinstance(created, table.GameCreated)
    start.wait()
    appended = 0
    cpu = _cpu()
    began = time.perf_counter()
    game = 0
    while time.perf_counter() - began < seconds:
        game_id = f"{prefix}-{game}"
        game += 1
        store.append(game_id, [dataclasses.replace(created, game_id=game_id)], 0)
        appended += 1
        for version, event in enumerate(events[1:], start=1):
            store.append(game_id, [event], version)
            appended += 1
            if version % 64 == 0 and time.perf_counter() - began >= seconds:
                break
    out.put((appended, time.perf_counter() - began, _cpu() - cpu))


def append_round(
    url: str, cluster: bool, events: list[Event], writers: int, seconds: float
) -> tuple[float, float]:
    """Events per second of ``writers`` processes appending together, and
    the writers' CPU time per event in microseconds."""
    ctx = multiprocessing.get_context("fork")
    start, out = ctx.Event(), ctx.Queue()
    tag = uuid.uuid4().hex[:6]
    procs = [
        ctx.Process(target=_writer, args=(url, cluster, events, f"w{tag}{i}", seconds, start, out))
        for i in range(writers)
    ]
    for p in procs:
        p.start()
    time.sleep(0.5)  # let every writer connect before the clock starts
    start.set()
    results = [out.get(timeout=seconds + 60) for _ in procs]
    for p in procs:
        p.join(30)
    events_done = sum(n for n, _, _ in results)
    rate = events_done / max(s for _, s, _ in results)
    return rate, sum(c for _, _, c in results) / events_done * 1e6


@dataclass
class AppendFigures:
    rates: dict[bool, list[float]] = field(default_factory=lambda: {False: [], True: []})
    cpu_us: dict[bool, list[float]] = field(default_factory=lambda: {False: [], True: []})
    server_us: dict[bool, float] = field(default_factory=dict)
    """Time inside Redis per append script (``INFO commandstats``)."""

    def rate(self, cluster: bool) -> float:
        return statistics.fmean(self.rates[cluster])

    def cpu(self, cluster: bool) -> float:
        return statistics.fmean(self.cpu_us[cluster])

    def ratio(self) -> float:
        """The median over paired rounds of cluster / single events per second."""
        pairs = zip(self.rates[True], self.rates[False], strict=True)
        return statistics.median(c / s for c, s in pairs)


def bench_appends(
    single: LocalCluster, cluster: LocalCluster, writers: int, rounds: int, seconds: float
) -> AppendFigures:
    events = recorded_events()
    figures = AppendFigures()
    for target in (single, cluster):
        for server in target.servers:
            with server.client() as node:
                node.config_resetstat()
    for r in range(rounds):
        order = [False, True] if r % 2 == 0 else [True, False]
        for on_cluster in order:
            target = cluster if on_cluster else single
            rate, cpu_us = append_round(target.url, on_cluster, events, writers, seconds)
            figures.rates[on_cluster].append(rate)
            figures.cpu_us[on_cluster].append(cpu_us)
            flush(target)
    for on_cluster, target in ((False, single), (True, cluster)):
        calls = usec = 0
        for server in target.servers:
            with server.client() as node:
                stats = node.info("commandstats").get("cmdstat_evalsha", {})
            calls += int(stats.get("calls", 0))
            usec += int(stats.get("usec", 0))
        figures.server_us[on_cluster] = usec / max(1, calls)
    return figures


def flush(target: LocalCluster) -> None:
    client = target.client() if target.cluster else target.servers[0].client()
    client.flushall()
    client.close()


# -- moves over HTTP -----------------------------------------------------------------------
@dataclass
class Samples:
    """Every move POST: when it started, how long it took, its status."""

    rows: list[tuple[float, float, int]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, at: float, seconds: float, status: int) -> None:
        with self.lock:
            self.rows.append((at, seconds, status))


def new_table(http: httpx.Client) -> tuple[str, list[str]]:
    gid = str(http.post("/games", json={"game": "murlan"}).json()["game_id"])
    seats = [http.post(f"/games/{gid}/seats", json={"name": f"p{i}"}) for i in range(4)]
    return gid, [str(s.json()["token"]) for s in seats]


def human_client(api: str, seed: int, samples: Samples, stop: threading.Event) -> None:
    """Plays every seat of a Murlan table by random legal moves, table after table."""
    rng = random.Random(seed)
    with httpx.Client(base_url=api, timeout=30) as http:
        gid, tokens = new_table(http)
        seat = 0
        while not stop.is_set():
            auth = {"Authorization": f"Bearer {tokens[seat]}"}
            view = http.get(f"/games/{gid}", headers=auth).json()
            if view["status"] == "ended":
                gid, tokens = new_table(http)
                continue
            if seat not in view["to_act"] or not view["legal_moves"]:
                if view["to_act"]:
                    seat = rng.choice(view["to_act"])
                else:
                    time.sleep(0.01)  # a deal is pending: the workers' turn
                continue
            body = {"move": rng.choice(view["legal_moves"]), "expected_version": view["version"]}
            began = time.perf_counter()
            r = http.post(f"/games/{gid}/moves", json=body, headers=auth)
            samples.add(began, time.perf_counter() - began, r.status_code)
            seat = (seat + 1) % 4


@dataclass
class MoveFigures:
    pairs: int
    accepted_per_s: float
    p50_ms: float
    p99_ms: float
    other: int
    client_cpu: float
    cpu_ms_per_move: dict[str, float]
    """CPU time per accepted move of the API processes, the workers, the
    cluster's Redis servers and the broker (from ``/proc``)."""


def bench_moves(
    cluster: LocalCluster,
    broker: LocalCluster,
    pairs: int,
    clients: int,
    warmup_s: float,
    measure_s: float,
) -> MoveFigures:
    flush(cluster)
    flush(broker)
    queue_name = f"bench-{uuid.uuid4().hex[:6]}"
    env = stack_env(cluster.url, cluster=True, queue_url=broker.url, queue_name=queue_name)
    stack = Stack(env)
    try:
        apis = [stack.start_api(threads=8) for _ in range(pairs)]
        for _ in range(pairs):
            stack.start_worker()
        stack.wait_healthy()
        samples, stop = Samples(), threading.Event()
        threads = [
            threading.Thread(
                target=human_client, args=(apis[i % pairs], i, samples, stop), daemon=True
            )
            for i in range(clients)
        ]
        for t in threads:
            t.start()
        time.sleep(warmup_s)
        stack.check_running()
        groups = _process_groups(stack, cluster, broker)
        window_start = time.perf_counter()
        cpu_start = _cpu()
        servers_start = {name: cpu_seconds(pids) for name, pids in groups.items()}
        time.sleep(measure_s)
        window_end = time.perf_counter()
        cpu = _cpu() - cpu_start
        servers = {name: cpu_seconds(pids) - servers_start[name] for name, pids in groups.items()}
        stop.set()
        for t in threads:
            t.join(30)
    except BaseException:
        print(stack.logs())
        raise
    finally:
        stack.stop()
    inside = [r for r in samples.rows if window_start <= r[0] < window_end]
    accepted = sorted(s for _, s, status in inside if status == 201)
    if not accepted:
        raise SystemExit("no move was accepted in the window")
    return MoveFigures(
        pairs,
        len(accepted) / (window_end - window_start),
        statistics.median(accepted) * 1000,
        percentile(accepted, 0.99) * 1000,
        sum(1 for _, _, status in inside if status != 201),
        cpu / (window_end - window_start),
        {name: seconds * 1000 / len(accepted) for name, seconds in servers.items()},
    )


def _process_groups(
    stack: Stack, cluster: LocalCluster, broker: LocalCluster
) -> dict[str, list[int]]:
    """The pids of the API processes (gunicorn's master and its worker), the
    workers, the cluster's servers and the broker."""
    groups: dict[str, list[int]] = {"api": [], "worker": [], "redis": []}
    by_group = {p.pid: p.name.partition("-")[0] for p in stack.procs}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue
        name = by_group.get(int(fields[2]))  # the process group: the one started
        if name in groups:
            groups[name].append(int(stat.parent.name))
    groups["redis"] = [s.proc.pid for s in cluster.servers]
    groups["broker"] = [broker.servers[0].proc.pid]
    return groups


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


# -- the run -----------------------------------------------------------------------------
def timed(label: str, run: Callable[[], Any]) -> Any:
    began = time.perf_counter()
    result = run()
    print(f"  ({label}: {time.perf_counter() - began:.0f} s)", flush=True)
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="shorter rounds and windows")
    parser.add_argument("--writers", type=int, default=2, help="append processes")
    parser.add_argument("--clients", type=int, default=8, help="scripted HTTP clients")
    args = parser.parse_args(argv)
    rounds, round_s = (2, 2.0) if args.quick else (2, 6.0)
    warmup_s, measure_s = (3.0, 8.0) if args.quick else (5.0, 20.0)
    load = os.getloadavg()[0]
    print(f"{os.cpu_count()} cores, load average {load:.1f} at the start")
    cluster = start_cluster(3)
    single = start_standalone()
    try:
        print(f"appends: {args.writers} writer processes, {rounds} rounds of {round_s:.0f} s each")
        appends: AppendFigures = timed(
            "appends", lambda: bench_appends(single, cluster, args.writers, rounds, round_s)
        )
        for name, on_cluster in (("single Redis    ", False), ("3-master cluster", True)):
            print(
                f"  {name} {appends.rate(on_cluster):9,.0f} events/s"
                f"   writers' CPU {appends.cpu(on_cluster):4.0f} us/event"
                f"   inside Redis {appends.server_us[on_cluster]:4.1f} us/append"
            )
        print(f"  cluster/single: {appends.ratio():.2f} (median of paired rounds)")
        print(
            f"moves: Murlan, {args.clients} HTTP clients, "
            f"{warmup_s:.0f} s warm-up, {measure_s:.0f} s measured, store on the cluster"
        )
        results = []
        for pairs in (1, 2):
            figures: MoveFigures = timed(
                f"{pairs} pair(s)",
                lambda pairs=pairs: bench_moves(  # type: ignore[misc]
                    cluster, single, pairs, args.clients, warmup_s, measure_s
                ),
            )
            results.append(figures)
            print(
                f"  {pairs} API+worker pair(s): {figures.accepted_per_s:7.1f} accepted moves/s"
                f"   p50 {figures.p50_ms:6.1f} ms   p99 {figures.p99_ms:6.1f} ms"
                f"   (other answers: {figures.other})"
            )
            per_move = "  ".join(f"{k} {v:.2f}" for k, v in figures.cpu_ms_per_move.items())
            print(
                f"      CPU ms per accepted move: {per_move}"
                f"   (clients: {figures.client_cpu:.2f} cores)"
            )
        gain = results[1].accepted_per_s / results[0].accepted_per_s
        print(f"  2 pairs / 1 pair: {gain:.2f}x")
    finally:
        cluster.stop()
        single.stop()


if __name__ == "__main__":
    main()
