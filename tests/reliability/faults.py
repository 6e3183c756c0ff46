"""What the fault tests share: clients playing in a thread of their own, and waits.

The clients (``bench.players``) run on an asyncio loop in a background
thread while the test thread injects the fault, so a fault always lands in
the middle of play: moves in flight, live streams open, jobs running. Every
wait blocks on something (a game's stream, a thread, a process) with a
deadline; nothing sleeps to make a test pass.
"""

from __future__ import annotations

import asyncio
import os
import random
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import httpx
import pytest

from bench.integrity import GameCheck, check_game, secrets_in_logs
from bench.players import Behaviour, Client, Stats, Table, TableSpec, play_table
from service.devstack import REDIS_SERVER, Stack
from service.engines import table
from service.store import EventStore

needs_redis_server = pytest.mark.skipif(
    not os.access(REDIS_SERVER, os.X_OK), reason=f"{REDIS_SERVER} is not installed"
)


class Players:
    """Tables played to their end by careful clients (every move keyed and versioned)."""

    def __init__(
        self,
        base_url: str,
        specs: Sequence[TableSpec],
        *,
        deadline_s: float = 180,
        seed: int = 7,
        tolerate_5xx: bool = False,
        how: Behaviour | None = None,
    ) -> None:
        self.base_url = base_url
        self.specs = list(specs)
        self.deadline_s = deadline_s
        self.seed = seed
        self.tolerate_5xx = tolerate_5xx
        self.how = how or Behaviour.careful()
        self.stats = Stats()
        self.tables: list[Table] = []
        self.error: BaseException | None = None
        self._opened = threading.Event()
        self._thread = threading.Thread(target=self._main, name="players", daemon=True)

    def start(self, open_timeout_s: float = 60) -> list[Table]:
        """Start playing; returns once every table is open and seated."""
        self._thread.start()
        if not self._opened.wait(open_timeout_s):
            raise AssertionError("the tables were not opened in time")
        if self.error is not None:
            raise self.error
        return self.tables

    def join(self) -> None:
        """Until every table has ended (its seed revealed); re-raises a client's failure."""
        self._thread.join(self.deadline_s + 30)
        assert not self._thread.is_alive(), "the clients did not finish"
        if self.error is not None:
            raise self.error
        assert not self.stats.problems, self.stats.problems[:10]

    def _main(self) -> None:
        try:
            asyncio.run(self._play())
        except BaseException as exc:  # surfaced by start() or join()
            self.error = exc
            self._opened.set()

    async def _play(self) -> None:
        rng = random.Random(self.seed)
        limits = httpx.Limits(max_connections=200, max_keepalive_connections=200)
        async with httpx.AsyncClient(
            base_url=self.base_url, limits=limits, timeout=httpx.Timeout(20)
        ) as http:
            client = Client(http, self.stats, time.monotonic() + self.deadline_s, self.tolerate_5xx)

            async def opened(table: Table) -> None:
                self.tables.append(table)
                if len(self.tables) == len(self.specs):
                    self._opened.set()

            await asyncio.gather(
                *(
                    play_table(client, spec, random.Random(rng.random()), self.how, opened)
                    for spec in self.specs
                )
            )


def wait_state(
    store: EventStore, game_id: str, done: Callable[[table.Table], bool], deadline_s: float = 120
) -> table.Table:
    """Until ``done`` holds for the game's state (blocking reads on its stream); that state."""
    deadline = time.monotonic() + deadline_s
    state = table.fold([s.event for s in store.read(game_id)])
    while not done(state):
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"game {game_id} stuck at version {state.version}")
        store.wait(game_id, state.version, max(1, int(min(left, 1.0) * 1000)))
        state = table.fold([s.event for s in store.read(game_id)])
    return state


def waits_for_a_worker(state: table.Table) -> bool:
    """A system step is due (a deal, a settlement, the reveal): only a worker takes it."""
    return table.pending(state) is not None


def wait_ended(store: EventStore, game_ids: Sequence[str], deadline_s: float = 180) -> None:
    """Until every game has ended and revealed its seed (blocking reads on each stream)."""
    deadline = time.monotonic() + deadline_s
    for game_id in game_ids:
        while True:
            stored = store.read(game_id, after=max(0, store.version(game_id) - 1))
            if stored and stored[-1].event.type == "SeedRevealed":
                break
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"game {game_id} did not end")
            store.wait(game_id, store.version(game_id), max(1, int(min(left, 1.0) * 1000)))


def check_all(stack: Stack, players: Players | None, game_ids: Sequence[str]) -> list[GameCheck]:
    """Every check of ``bench.integrity`` on every game; fails listing the problems."""
    store = EventStore(stack.redis.client())
    acks: dict[str, list[Any]] = {}
    stats = players.stats if players is not None else Stats()
    for ack in stats.acks:
        acks.setdefault(ack.game_id, []).append(ack)
    with httpx.Client(base_url=stack.api_url, timeout=30) as http:
        checks = [
            check_game(
                store,
                game_id,
                acks.get(game_id, []),
                stats.unknown[game_id],
                stats.stream_events.get(game_id),
                http if stack.api_url else None,
            )
            for game_id in game_ids
        ]
    problems = [f"{c.game} {c.game_id}: {p}" for c in checks for p in c.problems]
    if players is not None:
        problems += secrets_in_logs(stack.directory, store, players.tables)
    assert not problems, problems
    return checks


def acks_in_stream(store: EventStore, stats: Stats) -> int:
    """Every move acknowledged so far is in its stream, at its version, as sent."""
    found = 0
    by_game: dict[str, list[Any]] = {}
    for ack in list(stats.acks):
        by_game.setdefault(ack.game_id, []).append(ack)
    for game_id, acks in by_game.items():
        stored = store.read(game_id)
        for ack in acks:
            assert ack.first_version <= len(stored), f"{game_id}: v{ack.first_version} is gone"
            event = stored[ack.first_version - 1].event
            assert event.seat_of_move == ack.seat and event.move_body() == ack.move, (
                f"{game_id} v{ack.first_version}: {event} is not the acknowledged {ack.move}"
            )
            found += 1
    return found


def figures(label: str, **values: Any) -> None:
    """One line of measured figures, printed for the record (``pytest -s`` shows it)."""
    print(f"\nFIGURES {label}: " + ", ".join(f"{k}={v}" for k, v in values.items()))
