"""Load: many complete games at once through the HTTP API, then proof that nothing was lost.

Run ``.venv/bin/python -m bench.load`` (a few minutes) or ``--quick`` (about
a minute). It starts its own stack on loopback (see
:mod:`service.devstack`): Redis with the deploy's AOF settings
(``appendfsync always``), the API under gunicorn with the deploy's config
(two processes, ``--api-threads`` threads each), two ``cardroom worker``
processes with no bot delay and the reconciler; the rate limit is set out of
the way. Then it plays every table of the mix at once with human-style
clients (:mod:`bench.players`): each seat reads its view when its table's
live stream says the game moved and submits a legal move from
``legal_moves``; some moves are sent twice with the same idempotency key,
some first with a stale ``expected_version``. Murlan tables seat two bots
(played by the workers) beside two clients, to keep a match to a few hundred
client moves.

It prints moves accepted per second, p50/p99 latency of each kind of
request and every answer by status, then checks each game
(:mod:`bench.integrity`): the stream's versions are contiguous, every
acknowledged move is in it with its move and nothing else is, the events
audit clean with the revealed seed and match the workers' snapshot, the live
stream delivered every version once, Azi chips are conserved, and the replay
document passes the offline audit; and no process logged a seat token or
a server seed (the processes log every request, at INFO). Exit status 1 if
anything failed.
``--json FILE`` writes the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from service.devstack import Stack, running_stack
from service.store import EventStore

from .integrity import GameCheck, check_game, secrets_in_logs
from .players import Behaviour, Client, Deadline, Stats, Table, TableSpec, play_table
from .stats import percentile

HAZARI = TableSpec("hazari", {"target": 360})
MURLAN = TableSpec("murlan", {}, bots=2)


def azi(seats: int, buy_in: int, cards: int = 3) -> TableSpec:
    return TableSpec("azi", {"buy_in": buy_in, "ante": 10, "min_bet": 10, "cards": cards}, seats)


QUICK = [HAZARI] * 3 + [azi(2, 40), azi(3, 50), azi(3, 40, 4), azi(4, 60), azi(2, 60)] + [MURLAN]
FULL = (
    [HAZARI] * 8 + [azi(2 + n % 5, 40 + 10 * (n % 3), 3 + n % 2) for n in range(12)] + [MURLAN] * 3
)


@dataclass
class Run:
    tables: list[Table]
    stats: Stats
    elapsed_s: float
    failures: list[str]


async def play_all(
    base_url: str, specs: list[TableSpec], seed: int, deadline_s: float, how: Behaviour
) -> Run:
    """Play every table at once; returns what the clients saw."""
    stats = Stats()
    limits = httpx.Limits(max_connections=400, max_keepalive_connections=400)
    timeout = httpx.Timeout(30)
    rng = random.Random(seed)
    failures: list[str] = []
    async with httpx.AsyncClient(base_url=base_url, limits=limits, timeout=timeout) as http:
        client = Client(http, stats, time.monotonic() + deadline_s)
        started = time.perf_counter()
        jobs = [play_table(client, spec, random.Random(rng.random()), how) for spec in specs]
        results = await asyncio.gather(*jobs, return_exceptions=True)
        elapsed = time.perf_counter() - started
    tables: list[Table] = []
    for spec, result in zip(specs, results, strict=True):
        if isinstance(result, Table):
            tables.append(result)
        elif isinstance(result, Deadline):
            failures.append(f"a {spec.game} table did not finish within {deadline_s:.0f} s")
        else:
            failures.append(f"a {spec.game} table failed: {result!r}")
    return Run(tables, stats, elapsed, failures)


def check_all(stack: Stack, run: Run) -> list[GameCheck]:
    store = EventStore(stack.redis.client())
    acks: dict[str, list[Any]] = {}
    for ack in run.stats.acks:
        acks.setdefault(ack.game_id, []).append(ack)
    with httpx.Client(base_url=stack.api_url, timeout=30) as http:
        return [
            check_game(
                store,
                t.game_id,
                acks.get(t.game_id, []),
                run.stats.unknown[t.game_id],
                run.stats.stream_events.get(t.game_id),
                http,
            )
            for t in run.tables
        ]


def figures(run: Run, checks: list[GameCheck], specs: list[TableSpec], threads: int) -> Any:
    stats = run.stats
    accepted = len({(a.game_id, a.first_version) for a in stats.acks})
    requests = sum(stats.statuses.values())
    latency = {
        kind: {
            "n": len(values),
            "p50_ms": round(percentile(values, 0.50), 1),
            "p99_ms": round(percentile(values, 0.99), 1),
        }
        for kind, values in sorted(stats.latency_ms.items())
        if kind != "stream"
    }
    return {
        "tables": dict(Counter(s.game for s in specs)),
        "api": f"gunicorn, 2 processes x {threads} threads",
        "workers": 2,
        "elapsed_s": round(run.elapsed_s, 1),
        "moves_accepted": accepted,
        "moves_per_s": round(accepted / run.elapsed_s, 1),
        "requests": requests,
        "requests_per_s": round(requests / run.elapsed_s, 1),
        "latency": latency,
        "statuses": {f"{k} {s}": n for (k, s), n in sorted(stats.statuses.items())},
        "idempotent_replays": sum(1 for a in stats.acks if a.replayed),
        "stream_resumes": stats.resumes,
        "games_checked": len(checks),
        "games_ok": sum(c.ok for c in checks),
        "events_checked": sum(c.version for c in checks),
        "acked_moves_found": sum(c.acked for c in checks),
        "problems": stats.problems[:20] + run.failures,
    }


def report(out: Any) -> str:
    lines = [
        f"tables {out['tables']}; API {out['api']}; {out['workers']} workers; "
        "Redis AOF appendfsync always",
        f"elapsed {out['elapsed_s']} s; moves accepted {out['moves_accepted']} "
        f"({out['moves_per_s']}/s); requests {out['requests']} ({out['requests_per_s']}/s)",
        "latency      p50 ms   p99 ms        n",
    ]
    for kind, row in out["latency"].items():
        lines.append(f"  {kind:<9} {row['p50_ms']:>8} {row['p99_ms']:>8} {row['n']:>8}")
    lines.append("answers: " + ", ".join(f"{k}: {n}" for k, n in out["statuses"].items()))
    lines.append(
        f"idempotent replays {out['idempotent_replays']}; stream resumes {out['stream_resumes']}"
    )
    lines.append(
        f"integrity: {out['games_ok']}/{out['games_checked']} games ok; "
        f"{out['events_checked']} events; {out['acked_moves_found']} acknowledged moves found"
    )
    lines.extend(f"PROBLEM: {p}" for p in out["problems"])
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a smaller mix (about a minute)")
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--api-threads", type=int, default=32)
    parser.add_argument("--deadline", type=float, default=None, help="seconds for the play")
    parser.add_argument("--json", type=Path, default=None, help="write the figures here")
    parser.add_argument("--keep", action="store_true", help="keep the stack's directory")
    args = parser.parse_args(argv)
    specs = QUICK if args.quick else FULL
    deadline = args.deadline or (300.0 if args.quick else 900.0)
    with running_stack(
        api_threads=args.api_threads, keep=args.keep, CARDROOM_LOG_LEVEL="INFO"
    ) as stack:
        run = asyncio.run(play_all(stack.api_url, specs, args.seed, deadline, Behaviour()))
        checks = check_all(stack, run)
        stack.check_running()
        leaks = secrets_in_logs(stack.directory, EventStore(stack.redis.client()), run.tables)
    out = figures(run, checks, specs, args.api_threads)
    out["problems"].extend(leaks)
    for check in checks:
        out["problems"].extend(f"{check.game} {check.game_id}: {p}" for p in check.problems)
    print(report(out))
    if args.json is not None:
        args.json.write_text(json.dumps(out, indent=2) + "\n")
    return 1 if out["problems"] else 0


if __name__ == "__main__":
    sys.exit(main())
