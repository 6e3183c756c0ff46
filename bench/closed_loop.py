"""The throughput bench's closed-loop clients and what they measure.

Each client thread keeps one keep-alive connection and loops *public view ->
seat view -> move* on its own table: :func:`cardroom_client` on a Murlan table
whose four seats it plays itself, :func:`floor_client` on the floor app's
table. Both time every request into a :class:`Phase`; a :class:`LagSampler`
follows one cardroom move in five (``LAG_EVERY``) from its stream entry to
its game's snapshot reaching its version.
"""

from __future__ import annotations

import contextlib
import random
import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Final

import httpx
import redis

LAG_EVERY: Final = 5
LAG_POLL_S: Final = 0.002
SAMPLE_GIVE_UP_S: Final = 5.0
"""A sampled move whose version no entry took in this long was refused."""


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
        still: list[tuple[str, int, int | None, float]] = []
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


# -- the clients ------------------------------------------------------------------------------
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
