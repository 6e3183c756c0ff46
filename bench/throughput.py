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

``--profile N`` instead profiles a move's whole cost (``bench/move_profile.py``);
``--rq-floor N`` measures RQ's own CPU per job (``bench/rq_floor.py``).

The pieces: ``bench/rig.py`` starts the processes, ``bench/closed_loop.py``
holds the clients and what they measure, this module runs the phases and
prints the report.
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time
from collections.abc import Callable
from typing import Final

from bench.closed_loop import LagSampler, Phase, cardroom_client, floor_client
from bench.rig import Rig, rig
from bench.stats import percentile

KINDS: Final = ("api", "worker", "redis")
"""The kinds of process CPU is charged to (``Rig.pids``)."""


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
        args: tuple[object, ...]
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


def merged(group: list[Phase]) -> Phase:
    """The phases of one system as one: counts, CPU, latencies and lags added up."""
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


def report(phases: list[Phase], tables: int) -> None:
    floors = [p for p in phases if p.name == "floor"]
    rooms = [p for p in phases if p.name == "cardroom"]

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
        from bench.rq_floor import rq_floor

        rq_floor(args.rq_floor)
        return
    if args.profile:
        from bench.move_profile import profile

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
