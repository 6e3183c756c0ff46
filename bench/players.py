"""Human-style table clients over HTTP, for the load run and the fault tests.

A seat's client does what a person at a table does: it reads its own view
(``GET /games/{id}`` with its token) whenever the game moves, and when
``legal_moves`` offers something it picks one and submits it, naming the
version it decided on most of the time. Azi bets name an amount anywhere
within the listed smallest and largest. One live event stream per table
(``Accept: application/x-ndjson``) tells the table's seats that the game
moved, so nobody polls; when that stream drops, it is resumed with
``?after=<last version>`` and must go on without a gap or a repeat.

On purpose, some moves are sent twice with the same ``idempotency_key``
(the second must answer 201 with ``Idempotent-Replayed`` and the same body)
and some first go out with a stale ``expected_version`` (they must get 409
and change nothing). A transport error or a 5xx on a move is retried with
the same body and key until the run's deadline, with a growing pause, as a
client riding out a restart would; a move sent without a key is not
retried blindly but re-decided on a fresh view (its outcome is counted as
unknown, so the checks know one unacknowledged move may have landed).

Every acknowledged move is recorded (:class:`Ack`) so that the checks can
find each one in the stream afterwards.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Final

import httpx

JSONDict = dict[str, Any]
STREAM_READ_S: Final = 10.0
"""A live stream sends a line at least every CARDROOM_STREAM_KEEPALIVE_S; silence this
long means the connection is dead."""
WAKE_S: Final = 5.0
"""A seat re-reads its view at least this often even if no stream line arrived (a guard
should the table's stream be down for a while, not the way turns are noticed)."""
BACKOFF_S: Final = (0.05, 0.1, 0.2, 0.4, 0.8, 1.0)


@dataclass(frozen=True)
class TableSpec:
    """One table of a run: the game, its options and which seats are bots."""

    game: str
    options: JSONDict
    seats: int | None = None
    bots: int = 0


@dataclass(frozen=True)
class Behaviour:
    """How often the clients misbehave on purpose."""

    expected_share: float = 0.8
    """Moves that name the version they were decided on."""
    key_share: float = 0.6
    """Moves sent with an idempotency key."""
    retry_share: float = 0.1
    """Keyed moves sent a second time with the same key and body."""
    stale_share: float = 0.05
    """Moves first sent with an expected version one behind (must be a 409)."""
    leave_share: float = 0.0
    """Azi: how often a seat that may leave does."""

    @classmethod
    def careful(cls) -> Behaviour:
        """Every move keyed and versioned, so that any failure may be retried blindly."""
        return cls(expected_share=1.0, key_share=1.0)


@dataclass(frozen=True)
class Ack:
    """A move the server acknowledged with 201."""

    game_id: str
    seat: int
    move: JSONDict
    version: int
    first_version: int
    events: tuple[str, ...]
    """The types of the move's events, as the answer listed them."""
    key: str | None
    replayed: bool


@dataclass
class Stats:
    """What the clients saw: answers by request kind and status, latencies, oddities."""

    started: float = field(default_factory=time.perf_counter)
    statuses: Counter[tuple[str, str]] = field(default_factory=Counter)
    latency_ms: dict[str, list[float]] = field(default_factory=dict)
    acks: list[Ack] = field(default_factory=list)
    unknown: Counter[str] = field(default_factory=Counter)
    """Per game: keyless moves whose answer never came (they may or may not have landed)."""
    problems: list[str] = field(default_factory=list)
    """Answers that break the contract (a 5xx that was not a restart, a replay that differs…)."""
    resumes: int = 0
    stream_events: dict[str, list[int]] = field(default_factory=dict)
    """Per game: the versions of the events its live stream delivered, in order, over
    every connection (each resumed with ``after`` = the last version received)."""

    def record(self, kind: str, status: int | str, elapsed_s: float) -> None:
        self.statuses[(kind, str(status))] += 1
        self.latency_ms.setdefault(kind, []).append(elapsed_s * 1000)


class Deadline(Exception):
    """The run's time is up."""


@dataclass
class Client:
    """The HTTP side shared by every table of a run."""

    http: httpx.AsyncClient
    stats: Stats
    deadline: float
    tolerate_5xx: bool = False
    """Fault runs: a 5xx while Redis restarts is expected and retried, not a problem."""

    def left(self) -> float:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise Deadline()
        return left

    async def request(
        self, kind: str, method: str, url: str, *, retry: bool = True, **kwargs: Any
    ) -> httpx.Response:
        """One request; transport errors, 5xx and 429 are retried (if ``retry``) with a pause."""
        for attempt in range(1_000_000):
            self.left()
            started = time.perf_counter()
            try:
                response = await self.http.request(method, url, **kwargs)
            except httpx.TransportError as exc:
                self.stats.record(kind, type(exc).__name__, time.perf_counter() - started)
                if not retry:
                    raise
            else:
                self.stats.record(kind, response.status_code, time.perf_counter() - started)
                if response.status_code < 500 and response.status_code != 429:
                    return response
                if response.status_code >= 500 and not self.tolerate_5xx:
                    self.stats.problems.append(f"{method} {url}: {response.status_code}")
                if not retry:
                    return response
            pause = BACKOFF_S[min(attempt, len(BACKOFF_S) - 1)]
            await asyncio.sleep(min(pause, self.left()))
        raise AssertionError("unreachable")


@dataclass
class Table:
    """A table being played: its seats' tokens and what its stream has told so far."""

    game_id: str
    spec: TableSpec
    tokens: dict[int, str]
    version: int = 0
    ended: bool = False
    changed: asyncio.Condition = field(default_factory=asyncio.Condition)

    async def moved(self, version: int) -> None:
        async with self.changed:
            if version > self.version:
                self.version = version
            self.changed.notify_all()

    async def wait_beyond(self, version: int) -> None:
        """Until the table is past ``version`` (or has ended), at most :data:`WAKE_S`."""
        async with self.changed:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(
                    self.changed.wait_for(lambda: self.version > version or self.ended), WAKE_S
                )


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def open_table(client: Client, spec: TableSpec, rng: random.Random) -> Table:
    body: JSONDict = {"game": spec.game, "options": spec.options}
    if spec.seats is not None:
        body["seats"] = spec.seats
    r = await client.request("create", "POST", "/games", json=body)
    if r.status_code != 201:
        raise RuntimeError(f"POST /games: {r.status_code} {r.text}")
    created = r.json()
    game_id = created["game_id"]
    count = created["seats"]
    bots = set(rng.sample(range(count), spec.bots))
    tokens: dict[int, str] = {}
    for n in range(count):
        seat_body = {"name": f"Bot {n}" if n in bots else f"Ana Ωμέγα {n} 🂡", "bot": n in bots}
        r = await client.request("seat", "POST", f"/games/{game_id}/seats", json=seat_body)
        if r.status_code != 201:
            raise RuntimeError(f"POST seats: {r.status_code} {r.text}")
        taken = r.json()
        if taken["token"] is not None:
            tokens[taken["seat"]] = taken["token"]
    return Table(game_id, spec, tokens)


async def watch(client: Client, table: Table) -> None:
    """Follow the table's live stream from its first event to its ``end`` line,
    resuming with ``?after=<last version>`` whenever the connection drops."""
    delivered = client.stats.stream_events.setdefault(table.game_id, [])
    after = 0
    attempt = 0
    while True:
        client.left()
        try:
            async with client.http.stream(
                "GET",
                f"/games/{table.game_id}/events",
                params={"after": str(after)},
                headers={"Accept": "application/x-ndjson"},
                timeout=httpx.Timeout(10, read=STREAM_READ_S),
            ) as r:
                client.stats.record("stream", r.status_code, 0)
                if r.status_code != 200:
                    raise httpx.TransportError(f"the stream answered {r.status_code}")
                attempt = 0
                async for line in r.aiter_lines():
                    if not line.strip():
                        continue
                    item = json.loads(line)
                    kind, version = item["kind"], int(item["version"])
                    if kind == "event":
                        delivered.append(version)
                        after = version
                    if kind in ("event", "view"):
                        await table.moved(version)
                    elif kind == "end":
                        async with table.changed:
                            table.ended = True
                            table.changed.notify_all()
                        return
        except (httpx.TransportError, httpx.StreamError):
            client.stats.resumes += 1
            pause = BACKOFF_S[min(attempt, len(BACKOFF_S) - 1)]
            attempt += 1
            await asyncio.sleep(min(pause, client.left()))


Chooser = Callable[[Table, JSONDict, random.Random, Behaviour], JSONDict | None]


def choose(table: Table, view: JSONDict, rng: random.Random, how: Behaviour) -> JSONDict | None:
    """A legal move from the view, as a player would pick one (``None``: nothing to do)."""
    legal: list[JSONDict] = view.get("legal_moves") or []
    if not legal:
        return None
    game = table.spec.game
    if game == "azi":
        leave = [m for m in legal if m["action"] == "leave"]
        turn = [m for m in legal if m["action"] != "leave"]
        if leave and rng.random() < how.leave_share:
            return leave[0]
        if not turn:
            return None  # only ``leave`` is offered: not this seat's turn
        bets = [int(m["amount"]) for m in turn if m["action"] == "bet"]
        others = [m for m in turn if m["action"] != "bet"]
        if bets and (not others or rng.random() < 0.35):
            low, high = min(bets), max(bets)
            amount = low if rng.random() < 0.5 else rng.randint(low, high)
            return {"action": "bet", "amount": amount}
        return rng.choice(others)
    if game == "murlan":
        plays = [m for m in legal if m["action"] == "play"]
        if plays:
            most = max(len(m["cards"]) for m in plays)
            return rng.choice([m for m in plays if len(m["cards"]) == most])
        return rng.choice(legal)
    return rng.choice(legal)


async def play_seat(
    client: Client,
    table: Table,
    seat: int,
    rng: random.Random,
    how: Behaviour,
    chooser: Chooser = choose,
) -> None:
    """One seat's client: read the view when the table moves, move when it may."""
    token = table.tokens[seat]
    seen = -1
    while True:
        await table.wait_beyond(seen)
        r = await client.request("view", "GET", f"/games/{table.game_id}", headers=_auth(token))
        if r.status_code != 200:
            client.stats.problems.append(f"view of seat {seat}: {r.status_code} {r.text[:200]}")
            return
        view = r.json()
        seen = view["version"]
        if view["status"] == "ended":
            return
        move = chooser(table, view, rng, how)
        if move is None:
            continue
        await submit(client, table, seat, move, view["version"], rng, how)


async def submit(
    client: Client,
    table: Table,
    seat: int,
    move: JSONDict,
    version: int,
    rng: random.Random,
    how: Behaviour,
) -> None:
    """Send ``move`` (decided at ``version``) the way this run's clients do."""
    url = f"/games/{table.game_id}/moves"
    headers = _auth(table.tokens[seat])
    keyed = rng.random() < how.key_share
    key = f"{seat}-{uuid.uuid4().hex}" if keyed else None
    body: JSONDict = {"move": move}
    if rng.random() < how.expected_share:
        body["expected_version"] = version
    if key is not None:
        body["idempotency_key"] = key
    if version > 0 and rng.random() < how.stale_share:
        stale = {**body, "expected_version": version - 1}
        stale.pop("idempotency_key", None)
        r = await client.request("move", "POST", url, json=stale, headers=headers)
        if r.status_code != 409:
            client.stats.problems.append(f"stale move answered {r.status_code}: {r.text[:200]}")
    try:
        r = await client.request("move", "POST", url, json=body, headers=headers, retry=keyed)
    except httpx.TransportError:
        client.stats.unknown[table.game_id] += 1  # keyless: it may or may not have landed
        return
    if r.status_code >= 500:
        client.stats.unknown[table.game_id] += 1
        return
    if r.status_code != 201:
        if r.status_code not in (409,):
            client.stats.problems.append(f"move {move} answered {r.status_code}: {r.text[:300]}")
        return
    first = r.json()
    ack = _ack(
        table, seat, move, key, first, replayed=r.headers.get("Idempotent-Replayed") == "true"
    )
    client.stats.acks.append(ack)
    await table.moved(ack.version)
    if key is not None and rng.random() < how.retry_share:
        again = await client.request("retry", "POST", url, json=body, headers=headers)
        if again.status_code != 201 or again.json() != first:
            client.stats.problems.append(
                f"retry with key {key} answered {again.status_code}: {again.text[:200]}"
            )
        elif again.headers.get("Idempotent-Replayed") != "true":
            client.stats.problems.append(f"retry with key {key} was not marked as replayed")
        else:
            client.stats.acks.append(_ack(table, seat, move, key, again.json(), replayed=True))


def _ack(
    table: Table, seat: int, move: JSONDict, key: str | None, body: JSONDict, *, replayed: bool
) -> Ack:
    return Ack(
        table.game_id,
        seat,
        move,
        int(body["version"]),
        int(body["first_version"]),
        tuple(str(e["type"]) for e in body["events"]),
        key,
        replayed,
    )


async def play_table(
    client: Client,
    spec: TableSpec,
    rng: random.Random,
    how: Behaviour,
    opened: Callable[[Table], Awaitable[None]] | None = None,
) -> Table:
    """Open a table, seat everyone and play it to its end (seed revealed)."""
    table = await open_table(client, spec, rng)
    if opened is not None:
        await opened(table)
    seats = [
        play_seat(client, table, seat, random.Random(rng.random()), how) for seat in table.tokens
    ]
    await asyncio.gather(watch(client, table), *seats)
    return table
