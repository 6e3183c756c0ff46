"""Turn webhooks: from a turn's event to the receiver's first byte, with 100
subscribed seats playing at once; and the workers' CPU per delivery.

Two-seat Azi tables (every seat a person, subscribed to ``turn_started`` on a
receiver on loopback) play on the real Redis, their moves made in this process
through the application service (as the API would) with a think time, their
follow-ups and deliveries done by M ``cardroom worker`` processes. The
receiver timestamps the first byte of each request; the lag is that minus the
event's time in the stream (Redis's clock, in ms). The floor, in the same run:
a bare POST from this process to the same receiver. The workers' CPU per
delivery is their CPU with the seats subscribed less their CPU per move
without (a second phase of the same play, no subscriptions), per delivery.

    .venv/bin/python -m bench.bench_webhooks [--seats 100] [--workers 2] [--seconds 30] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import threading
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import httpx
import redis

from bench.cpu import cpu_seconds
from bench.stats import percentile
from service.config import load_settings
from service.devstack import Stack
from service.games import GameService
from service.runtime import Runtime

AZI = {"buy_in": 60, "ante": 10, "min_bet": 10}


@dataclass
class Receiver:
    """A keep-alive HTTP receiver on loopback (asyncio, its own thread) that
    notes when the first byte of each request arrived and the event it carries."""

    arrivals: list[tuple[float, dict[str, Any]]] = field(default_factory=list)
    port: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self) -> None:
        ready = threading.Event()

        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                while True:
                    first = await reader.read(1)
                    if not first:
                        return
                    at = time.time()
                    head = first + await reader.readuntil(b"\r\n\r\n")
                    length = 0
                    for line in head.split(b"\r\n"):
                        name, _, value = line.partition(b":")
                        if name.strip().lower() == b"content-length":
                            length = int(value)
                    body = await reader.readexactly(length)
                    writer.write(b"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n")
                    await writer.drain()
                    with self.lock:
                        self.arrivals.append((at, json.loads(body) if body else {}))
            except (asyncio.IncompleteReadError, ConnectionError):
                return

        async def serve() -> None:
            server = await asyncio.start_server(handle, "127.0.0.1", 0)
            self.port = server.sockets[0].getsockname()[1]
            ready.set()
            async with server:
                await server.serve_forever()

        threading.Thread(target=lambda: asyncio.run(serve()), daemon=True).start()
        ready.wait(10)

    def taken(self) -> list[tuple[float, dict[str, Any]]]:
        with self.lock:
            out, self.arrivals = self.arrivals, []
        return out


def floor(receiver: Receiver, count: int) -> list[float]:
    """A bare POST of a payload-sized body: from sending to the receiver's first byte."""
    receiver.taken()
    body = json.dumps({"event": "floor", "pad": "x" * 200}).encode()
    sent: list[float] = []
    with httpx.Client() as client:
        for _ in range(count):
            sent.append(time.time())
            client.post(f"http://127.0.0.1:{receiver.port}/floor", content=body)
    arrived = [at for at, _ in receiver.taken()]
    return [a - s for a, s in zip(arrived, sent, strict=False)]


class Tables:
    """Two-seat Azi tables kept playing: a finished one is replaced by a new one."""

    def __init__(self, runtime: Runtime, service: GameService, url: str | None) -> None:
        self.runtime, self.service, self.url = runtime, service, url

    def open(self) -> str:
        state = self.service.create_game("azi", AZI, 2)
        for seat in range(2):
            self.service.take_seat(state.game_id, f"p{seat}", f"s{seat}")
            if self.url is not None:
                self.runtime.webhooks.create(
                    state.game_id, seat, False, self.url, ["turn_started"], "127.0.0.1"
                )
        return state.game_id


def play(tables: Tables, count: int, seconds: float, think_s: float, seed: int) -> int:
    """``count`` tables played until ``seconds`` are up; how many moves were made."""
    games = [tables.open() for _ in range(count)]
    moves = [0]
    stop = time.monotonic() + seconds
    lock = threading.Lock()

    def player(mine: list[int], rng: random.Random) -> None:
        next_at = dict.fromkeys(mine, 0.0)
        while time.monotonic() < stop:
            now = time.monotonic()
            for i in mine:
                if next_at[i] > now:
                    continue
                state = tables.service.load(games[i])
                if state.over:
                    games[i] = tables.open()
                    continue
                for seat in sorted(state.engine.to_act(state.engine_state)):
                    legal = [
                        m
                        for m in state.engine.legal_moves(state.engine_state, seat)
                        if m.get("action") != "leave"
                    ]
                    if legal:
                        try:
                            tables.service.submit_move(games[i], seat, rng.choice(legal))
                        except Exception:  # the workers moved the game on meanwhile
                            break
                        with lock:
                            moves[0] += 1
                        next_at[i] = time.monotonic() + think_s * rng.uniform(0.5, 1.5)
                        break
            time.sleep(0.005)  # a benchmark's pacing, not a test's wait

    threads = [
        threading.Thread(target=player, args=(list(range(k, count, 4)), random.Random(seed + k)))
        for k in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return moves[0]


def event_ms(payload: dict[str, Any]) -> float:
    return datetime.fromisoformat(payload["at"]).timestamp()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seats", type=int, default=100, help="subscribed seats (two a table)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (M)")
    parser.add_argument("--seconds", type=float, default=30, help="each phase's play")
    parser.add_argument("--think-s", type=float, default=1.0, help="a seat's think time")
    parser.add_argument("--url", default="redis://127.0.0.1:6379/8")
    parser.add_argument("--quick", action="store_true", help="12 s a phase (under a minute)")
    args = parser.parse_args()
    if args.quick:
        args.seconds = 12.0
    client = redis.Redis.from_url(args.url)
    client.flushdb()
    queue = f"bench-{uuid.uuid4().hex[:6]}"
    env = {
        **os.environ,
        "CARDROOM_REDIS_URL": args.url,
        "CARDROOM_QUEUE_NAME": queue,
        "CARDROOM_BOT_DELAY_S": "0",
        "CARDROOM_LOG_LEVEL": "WARNING",
        "CARDROOM_WEBHOOK_HTTP_LOOPBACK": "1",
        "CARDROOM_WORKER_METRICS_PORT": "0",
        "CARDROOM_TIMER_POLL_S": "0.05",
    }
    workers = Stack(env)
    procs = [workers.start_worker() for _ in range(args.workers)]
    settings = load_settings(
        redis_url=args.url, queue_name=queue, webhook_http_loopback=True, log_level="WARNING"
    )
    runtime = Runtime.from_settings(settings)
    service = runtime.service()
    receiver = Receiver()
    receiver.start()
    tables = args.seats // 2
    try:
        floors = floor(receiver, 300)
        pids = [p.pid for p in procs]
        cpu0 = cpu_seconds(pids, children=True)
        moves_bare = play(Tables(runtime, service, None), tables, args.seconds, args.think_s, 1)
        cpu1 = cpu_seconds(pids, children=True)
        url = f"http://127.0.0.1:{receiver.port}/hook"
        moves_hooked = play(Tables(runtime, service, url), tables, args.seconds, args.think_s, 2)
        drained = time.monotonic() + 5
        while time.monotonic() < drained and runtime.queue.count:
            time.sleep(0.05)  # let the workers finish what was queued
        cpu2 = cpu_seconds(pids, children=True)
        got = receiver.taken()
    finally:
        workers.stop()
        client.flushdb()
    lags = [at - event_ms(p) for at, p in got if p.get("event") == "turn_started"]
    per_move_bare = (cpu1 - cpu0) / max(1, moves_bare)
    hooked_cpu = cpu2 - cpu1
    per_delivery = (hooked_cpu - per_move_bare * moves_hooked) / max(1, len(lags))
    print(f"seats subscribed at once: {args.seats} ({tables} tables); workers: {args.workers}")
    print(f"phase without webhooks: {moves_bare} moves; workers' CPU {cpu1 - cpu0:.2f} s")
    print(
        f"phase with webhooks: {moves_hooked} moves, {len(lags)} turn_started deliveries; "
        f"workers' CPU {hooked_cpu:.2f} s"
    )
    f50, f99 = percentile(floors, 0.5) * 1000, percentile(floors, 0.99) * 1000
    print(f"floor, a bare POST to the receiver: p50 {f50:.1f} ms, p99 {f99:.1f} ms")
    if lags:
        p50, p99 = percentile(lags, 0.5) * 1000, percentile(lags, 0.99) * 1000
        print(f"event -> receiver's first byte: p50 {p50:.1f} ms, p99 {p99:.1f} ms")
        p90 = percentile(lags, 0.9) * 1000
        late = sum(1 for lag in lags if lag > 0.1)
        print(f"p90 {p90:.1f} ms; over 100 ms: {late} of {len(lags)}")
        ratio50, ratio99 = p50 / max(f50, 0.01), p99 / max(f99, 0.01)
        print(f"ratio to the floor: p50 {ratio50:.1f}x, p99 {ratio99:.1f}x")
        print(f"target webhook p99 < 100 ms: {p99:.1f} ms ({'met' if p99 < 100 else 'not met'})")
    print(
        f"workers' CPU per delivery: {per_delivery * 1000:.2f} ms "
        f"(per move without webhooks: {per_move_bare * 1000:.2f} ms)"
    )
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
