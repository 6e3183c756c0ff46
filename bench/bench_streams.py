"""Ten thousand live streams on one stream-server process: delivery, memory, CPU.

``python -m bench.bench_streams [--quick] [--tables 2500] [--playing 250]``

A deployment on this host (its own AOF Redis with the deploy's config and
ACL, ``appendfsync everysec`` so that seating thousands of tables is quick;
the API under gunicorn; one gevent stream-server process as
``deploy/gunicorn-streams.conf.py`` runs it) and, in this process, one seat
stream per seat of ``--tables`` four-seat Murlan tables (10,000 streams for
2,500) held open from one event loop; the moves are made by a process of
their own. Then ``--playing`` tables play at
human pace (a move every 1-3 s each) for ``--seconds``, then as fast as
this process can move them for ``--burst-s``. Printed:

- from a move's append (its entry's time, Redis's clock) to its line on
  every stream of the game: p50, p99 and max, per phase;
- the stream server worker's memory per open stream (the RSS slope from
  the first 10% of streams to all of them) and its CPU per delivered line;
- Redis connections (all clients, and those blocked in a read) before the
  stream server, with every stream open, and while they play;
- the API's p99 meanwhile (seat views, 10 a second).

The file-descriptor limit is raised to its hard limit for this process and
the servers it starts; what stops the opening short is printed.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from bench.cpu import cpu_seconds
from bench.stats import percentile
from bench.stream_crowd import StreamCrowd
from service.api import create_app
from service.config import load_settings
from service.devstack import GUNICORN, Proc, Stack, free_port, running_stack, wait_for
from service.devstack.procs import private_directory
from service.devstack.redis_server import acl_with_admin
from service.games import GameService
from service.runtime import Runtime

ROOT = Path(__file__).resolve().parents[1]


def raise_fd_limit() -> int:
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def seated(svc: GameService, count: int, threads: int = 4) -> list[tuple[str, list[str]]]:
    """``count`` full Murlan tables, dealt (from ``threads`` threads)."""
    out: list[tuple[str, list[str]]] = []

    def some(n: int) -> None:
        for _ in range(n):
            state = svc.create_game("murlan")
            tokens = [svc.take_seat(state.game_id, f"p{i}").token or "" for i in range(4)]
            svc.advance(state.game_id)
            out.append((state.game_id, tokens))

    shares = [count // threads + (1 if i < count % threads else 0) for i in range(threads)]
    workers = [threading.Thread(target=some, args=(n,)) for n in shares]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return out


def move(svc: GameService, game_id: str) -> None:
    svc.advance(game_id)
    state = svc.load(game_id)
    if state.over:
        return
    seat = min(state.engine.to_act(state.engine_state))
    svc.submit_move(game_id, seat, state.engine.legal_moves(state.engine_state, seat)[0])


class ApiProbe:
    """Seat views on the API, 10 a second, their latencies by phase."""

    def __init__(self, url: str, tables: list[tuple[str, list[str]]], crowd: StreamCrowd) -> None:
        self.url, self.tables, self.crowd = url, tables, crowd
        self.latencies: dict[str, list[float]] = {}
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        rng = random.Random(1)
        with httpx.Client(base_url=self.url, timeout=10) as http:
            while not self.stop.wait(0.1):
                gid, tokens = rng.choice(self.tables)
                started = time.perf_counter()
                http.get(f"/games/{gid}", headers={"Authorization": f"Bearer {tokens[0]}"})
                took = (time.perf_counter() - started) * 1000
                self.latencies.setdefault(self.crowd.tally.phase, []).append(took)


def play(svc: GameService, games: list[str], seconds: float, paced: bool) -> int:
    """Moves on ``games`` for ``seconds``: each every 1-3 s when ``paced``, else
    round after round as fast as this process goes; how many."""
    rng = random.Random(7)
    due = {g: time.monotonic() + rng.uniform(0, 2) for g in games}
    end = time.monotonic() + seconds
    made = 0
    while time.monotonic() < end:
        if paced:
            gid = min(due, key=due.__getitem__)
            time.sleep(max(0.0, due[gid] - time.monotonic()))
            move(svc, gid)
            due[gid] = time.monotonic() + rng.uniform(1, 3)
            made += 1
        else:
            for gid in games:
                move(svc, gid)
                made += 1
    return made


def drive(redis_url: str, games: list[str], seconds: float, paced: bool) -> int:
    """:func:`play` in a process of its own (``--drive``), so that the moves and
    the crowd reading the streams do not share one interpreter's lock."""
    spec = json.dumps({"redis_url": redis_url, "games": games, "seconds": seconds, "paced": paced})
    done = subprocess.run(
        [sys.executable, "-m", "bench.bench_streams", "--drive"],
        input=spec,
        capture_output=True,
        text=True,
        check=True,
    )
    return int(done.stdout.strip().splitlines()[-1])


def driven() -> None:
    """The ``--drive`` process: the spec on stdin, the moves made on stdout."""
    spec = json.loads(sys.stdin.read())
    settings = load_settings(redis_url=spec["redis_url"], bot_delay_s=0)
    svc: GameService = create_app(settings, Runtime.from_settings(settings)).extensions["cardroom"]
    print(play(svc, spec["games"], spec["seconds"], spec["paced"]))


def redis_clients(admin: Any) -> tuple[int, int]:
    info = admin.info("clients")
    return int(info["connected_clients"]), int(info["blocked_clients"])


def summary(name: str, values: list[float]) -> str:
    if not values:
        return f"{name}: none"
    return (
        f"{name}: p50 {percentile(values, 0.5):.1f} ms, p99 {percentile(values, 0.99):.1f} ms, "
        f"max {max(values):.1f} ms over {len(values)}"
    )


def start_streams(stack: Stack, port: int, streams: int, freeze_every: int | None) -> Proc:
    conf = str(ROOT / "deploy" / "gunicorn-streams.conf.py")
    freezing = (
        {} if freeze_every is None else {"CARDROOM_STREAM_GC_FREEZE_EVERY": str(freeze_every)}
    )
    server = stack.start_process(
        "streams",
        [GUNICORN, "-c", conf, "service.streams:create_app()"],
        CARDROOM_STREAM_BIND=f"127.0.0.1:{port}",
        CARDROOM_STREAM_CONNECTIONS=str(streams + 1000),
        CARDROOM_STREAMS_MAX=str(streams + 500),
        CARDROOM_STREAM_KEEPALIVE_S="15",
        **freezing,
    )
    wait_for(
        lambda: _answers(f"http://127.0.0.1:{port}") and bool(server.children()),
        time.monotonic() + 60,
        lambda: f"the stream server did not answer: {stack.logs()}",
        alive=stack.check_running,
    )
    return server


def _answers(url: str) -> bool:
    try:
        return httpx.get(f"{url}/healthz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="250 tables, 10 s phases")
    parser.add_argument("--tables", type=int, default=2500)
    parser.add_argument("--playing", type=int, default=250)
    parser.add_argument("--seconds", type=float, default=40)
    parser.add_argument("--burst-s", type=float, default=15)
    parser.add_argument("--open-timeout-s", type=float, default=600)
    parser.add_argument(
        "--gc-freeze-every",
        type=int,
        default=None,
        help="the stream server's CARDROOM_STREAM_GC_FREEZE_EVERY (default: the deploy's; 0: off)",
    )
    parser.add_argument("--drive", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.drive:
        driven()
        return
    if args.quick:
        args.tables, args.playing, args.seconds, args.burst_s = 250, 50, 10, 5
    limit = raise_fd_limit()
    streams = args.tables * 4
    acl = acl_with_admin(private_directory("bench-streams-acl-"))
    print(f"file descriptors: {limit} per process (hard limit); {streams} streams asked")
    with running_stack(
        workers=0, scheduler=False, api_processes=1, api_threads=4, aclfile=acl,
        redis_options=("--appendfsync", "everysec"), CARDROOM_PROXIES="1",
    ) as stack:  # fmt: skip
        admin = stack.redis.admin_client()
        settings = load_settings(redis_url=stack.redis.url, bot_delay_s=0)
        svc: GameService = create_app(settings, Runtime.from_settings(settings)).extensions[
            "cardroom"
        ]
        started = time.monotonic()
        tables = seated(svc, args.tables)
        print(f"{args.tables} tables seated and dealt in {time.monotonic() - started:.0f} s")
        before_streams = redis_clients(admin)
        port = free_port()
        server = start_streams(stack, port, streams, args.gc_freeze_every)
        worker = server.children()[0]
        crowd = StreamCrowd(port)
        probe = ApiProbe(stack.api_url, tables, crowd)
        pairs = [(gid, token) for gid, tokens in tables for token in tokens]
        try:
            empty_kb = rss_kb(worker)
            warm = max(1, len(pairs) // 10)
            opened_at = time.monotonic()
            crowd.open(pairs[:warm], 0, args.open_timeout_s)
            time.sleep(2)
            warm_kb, warm_open = rss_kb(worker), crowd.tally.opened
            left = args.open_timeout_s - (time.monotonic() - opened_at)
            crowd.open(pairs[warm:], warm, max(1.0, left))
            open_s = time.monotonic() - opened_at
            time.sleep(2)
            full_kb, full_open = rss_kb(worker), crowd.tally.opened
            open_clients = redis_clients(admin)
            print(
                f"streams open: {full_open} of {streams} in {open_s:.0f} s; refusals (each "
                f"tried again, 3 times at most) {dict(crowd.tally.refused)}; connections "
                f"failed {crowd.tally.failed}"
            )
            per_stream = (full_kb - warm_kb) / max(1, full_open - warm_open)
            print(
                f"stream server worker RSS: {empty_kb / 1024:.1f} MiB with none, "
                f"{warm_kb / 1024:.1f} MiB with {warm_open}, {full_kb / 1024:.1f} MiB with "
                f"{full_open}: {per_stream:.1f} KiB per open idle stream"
            )
            games = [gid for gid, _ in tables[: args.playing]]
            phases = (("play", args.seconds, True), ("burst", args.burst_s, False))
            for phase, seconds, paced in phases:
                crowd.tally.phase = phase
                cpu0 = cpu_seconds([worker])
                moves = drive(stack.redis.url, games, seconds, paced)
                time.sleep(1)
                cpu = cpu_seconds([worker]) - cpu0
                lines = crowd.tally.lines[phase]
                events = len(crowd.tally.delays_ms[phase])
                play_clients = redis_clients(admin)
                print(f"{phase}: {moves} moves on {len(games)} tables in {seconds:.0f} s")
                print("  " + summary("append to line", crowd.tally.delays_ms[phase]))
                print(
                    f"  stream server CPU {cpu:.1f} s: {cpu / max(1, events) * 1e6:.0f} µs "
                    f"per delivered event line ({events} event lines, {lines} lines with "
                    "keep-alives)"
                )
                print("  " + summary("API seat view", probe.latencies.get(phase, [])))
                print(f"  Redis clients (connected, blocked) now: {play_clients}")
            print(
                f"Redis clients (connected, blocked): {before_streams} before the stream "
                f"server, {open_clients} with every stream open"
            )
            delays = crowd.tally.delays_ms["play"]
            if delays:
                print(f"target delivery p99 < 100 ms: {percentile(delays, 0.99):.1f} ms at play")
        finally:
            probe.stop.set()
            crowd.close()
            admin.close()


if __name__ == "__main__":
    main()
