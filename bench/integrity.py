"""The checks after a load run or a fault: nothing lost, nothing invented, every game sound.

For each game, straight from its Redis stream (not from what the API says):

- the versions are exactly 1..N (no gap, no duplicate) and the stream
  holds N entries;
- the events audit clean (:func:`service.replay.audit`: commitment, every
  deal re-derived from the revealed seed, every move re-decided by the
  engine, the result recomputed) and the workers' snapshot, once caught up,
  is the same state as the fold of the events;
- every acknowledged move (every 201) is in the stream at the version its
  answer gave, by that seat, with that move body and those event types, and
  every move of a client's seat in the stream was acknowledged (up to the
  moves whose answer the client never got: those may have landed once,
  never twice; bots' moves are the workers' and nobody acknowledges them);
- the live stream the client followed delivered exactly versions 1..N, in
  order, across its resumes;
- Azi: after every event the stacks plus the pot equal the chips brought,
  and the workers' chip ledger of settled pots sums to zero with one entry
  per seat per settled pot;
- the public replay document of the ended game passes the offline audit.

And over every process's log: no seat token, no digest of one, no server
seed (:func:`secrets_in_logs`).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from service.engines import table
from service.engines.azi.engine import chips_brought, total_chips
from service.replay import RecordedEvent, audit, audit_replay
from service.store import EventStore, StoredEvent

from .players import Ack, Table

PROJECTION_WAIT_S = 60.0


@dataclass
class GameCheck:
    game_id: str
    game: str = "?"
    version: int = 0
    moves: int = 0
    acked: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def wait_projected(store: EventStore, game_id: str, deadline_s: float = PROJECTION_WAIT_S) -> int:
    """Until the workers' snapshot is at the stream's version; that version.

    Blocks on the game's stream between looks (a new event ends the wait at
    once); nothing else announces a snapshot.
    """
    deadline = time.monotonic() + deadline_s
    version = store.version(game_id)
    while store.snapshot_version(game_id) < version:
        if time.monotonic() > deadline:
            raise AssertionError(f"the projection of {game_id} is stuck below {version}")
        store.wait(game_id, version, 100)
        version = store.version(game_id)
    return version


def check_game(
    store: EventStore,
    game_id: str,
    acks: Iterable[Ack] = (),
    unknown: int = 0,
    stream_versions: Sequence[int] | None = None,
    http: httpx.Client | None = None,
) -> GameCheck:
    """Every check of the module doc on one ended game."""
    check = GameCheck(game_id)
    bad = check.problems.append
    stored = store.read(game_id)
    if not stored:
        bad("no events")
        return check
    versions = [s.version for s in stored]
    check.version = versions[-1]
    if versions != list(range(1, len(stored) + 1)):
        bad(f"versions are not 1..{len(stored)}: gaps or duplicates")
    if store.version(game_id) != len(stored):
        bad(f"the stream holds {store.version(game_id)} entries, {len(stored)} were read")
    state = table.fold([s.event for s in stored])
    check.game = state.kind
    if not (state.over and state.server_seed is not None):
        bad(f"not ended with its seed revealed (status {state.status})")
        return check
    report = audit(
        [RecordedEvent(s.version, s.event) for s in stored],
        state.server_seed,
        state.engine.result(state.engine_state),
    )
    if not report.ok:
        bad(f"audit: {report.mismatch}")
    _check_snapshot(store, state, bad)
    bots = {i for i, seat in enumerate(state.seats) if seat is not None and seat.bot}
    _check_acks(check, stored, acks, unknown, bots)
    if stream_versions is not None and list(stream_versions) != versions:
        bad(f"the live stream delivered {_summary(stream_versions)}, not 1..{check.version}")
    if state.kind == "azi":
        _check_chips(store, game_id, stored, bad)
    if http is not None:
        doc = http.get(f"/games/{game_id}/replay").json()
        offline = audit_replay(doc)
        if not offline.ok or len(doc["events"]) != len(stored):
            bad(f"the replay document does not audit: {offline.mismatch}")
    return check


def _check_snapshot(store: EventStore, state: table.Table, bad: Any) -> None:
    try:
        wait_projected(store, state.game_id)
    except AssertionError as exc:
        bad(str(exc))
        return
    snapshot = store.load_snapshot(state.game_id)
    if snapshot is None or snapshot.version != state.version:
        bad("no snapshot at the final version")
    elif table.view(snapshot, None) != table.view(state, None):
        bad("the workers' snapshot differs from the fold of the events")


def _check_acks(
    check: GameCheck, stored: list[StoredEvent], acks: Iterable[Ack], unknown: int, bots: set[int]
) -> None:
    """Acknowledged moves against the stream's moves (bots' moves are the workers')."""
    bad = check.problems.append
    by_version: dict[int, Ack] = {}
    for ack in acks:
        earlier = by_version.setdefault(ack.first_version, ack)
        if (earlier.seat, earlier.move, earlier.version) != (ack.seat, ack.move, ack.version):
            bad(f"two different moves acknowledged at version {ack.first_version}")
    check.acked = len(by_version)
    moves = {
        s.version: s
        for s in stored
        if s.event.move_body() is not None and s.event.seat_of_move not in bots
    }
    check.moves = len(moves)
    for first, ack in sorted(by_version.items()):
        if not 1 <= first <= ack.version <= len(stored):
            bad(f"acknowledged versions {first}..{ack.version} are not in the stream")
            continue
        event = stored[first - 1].event
        if event.seat_of_move != ack.seat or event.move_body() != ack.move:
            bad(f"v{first}: the stream holds {event.type} {event.move_body()}, not {ack.move}")
        types = tuple(s.event.type for s in stored[first - 1 : ack.version])
        if types != ack.events:
            bad(f"v{first}..{ack.version}: the stream holds {types}, the answer said {ack.events}")
    unacked = sorted(set(moves) - set(by_version))
    if len(unacked) > unknown:
        bad(f"{len(unacked)} moves in the stream were never acknowledged: {unacked[:10]}")


def _check_chips(store: EventStore, game_id: str, stored: list[StoredEvent], bad: Any) -> None:
    state: table.Table | None = None
    for s in stored:
        state = table.apply(state, s.event)
        if not state.seated:
            continue
        engine_state: Any = state.engine_state
        if total_chips(engine_state) != chips_brought(engine_state):
            bad(f"v{s.version}: {total_chips(engine_state)} chips on the table")
            return
    ledger = store.readmodel.ledger(game_id)
    settled = [s for s in stored if s.event.type == "PotSettled"]
    expected = {
        f"{s.version}:{seat}": paid - put
        for s in settled
        for seat, (paid, put) in enumerate(
            zip(s.event.payouts, s.event.contributions, strict=True)  # type: ignore[attr-defined]
        )
        if paid or put
    }
    if ledger != expected:
        bad(f"the chip ledger differs from the settled pots ({len(ledger)} vs {len(expected)})")
    if sum(ledger.values()) != 0:
        bad(f"the chip ledger sums to {sum(ledger.values())}")


def secrets_in_logs(directory: Path, store: EventStore, tables: Iterable[Table]) -> list[str]:
    """Where a seat token, its digest or a game's server seed shows in a process's log."""
    secrets: dict[str, str] = {}
    for t in tables:
        for seat, token in t.tokens.items():
            secrets[token] = f"the token of seat {seat} of {t.game_id}"
            secrets[hashlib.sha256(token.encode()).hexdigest()] = f"the digest of {token[:4]}…"
        seed = store.get_secret(t.game_id)
        if seed is not None:
            secrets[seed.hex()] = f"the server seed of {t.game_id}"
    found = []
    for log in sorted(directory.glob("*.log")):
        text = log.read_text(errors="replace")
        found += [f"{log.name} shows {what}" for secret, what in secrets.items() if secret in text]
    return found


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _summary(versions: Sequence[int]) -> str:
    if not versions:
        return "nothing"
    dups = len(versions) - len(set(versions))
    return f"{len(versions)} events {versions[0]}..{versions[-1]} ({dups} repeated)"
