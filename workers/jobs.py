"""RQ jobs: everything that happens between seats' moves.

Every job is safe to run twice and safe to race with another worker: each
write is either an append with an expected version (a duplicate is refused
by the store and ignored here) or an idempotent write (``HSETNX`` into the
ledger, a snapshot that only moves forward).

A game has at most one follow-up job queued or running (see
:mod:`service.coalesce`): :func:`process_game` goes round until the game's
projection is current and nothing is left to do now, sets the game's timer
to its next due time (a bot's thinking delay, a turn timeout) and only then
lets the game's marker go.
"""

from __future__ import annotations

import logging
import time
from typing import Any, Final, cast

from service import lag
from service.answers import on_revealed
from service.coalesce import now_ms
from service.engines import game as table
from service.engines.base import JSON, RuleError
from service.fairness import projection as fairness
from service.store import (
    DEFAULT_CACHE,
    EventStore,
    StoredEvent,
    VersionConflict,
    keys,
)

from .context import context

log = logging.getLogger("cardroom.jobs")

TURN_FIELD = "turn:"
MAX_ROUNDS: Final = 512
"""Rounds one follow-up job takes at most before it hands over to a fresh
job (a guard: a whole match of bots without delay takes fewer)."""


def process_game(game_id: str) -> JSON:
    """The follow-up of a game: rounds of system steps, projection, bots and
    timeouts until nothing is left to do now; then the game's timer is set to
    its next due time and its marker let go (unless something happened
    meanwhile: then one more round)."""
    started = time.perf_counter()
    followups = context().runtime.followups
    done: dict[str, int] = {"steps": 0, "bots": 0, "timeouts": 0}
    rounds = 0
    version = 0
    while True:
        rounds += 1
        seen = followups.begin_round(game_id)
        state, starts = project_with_starts(game_id)
        version = state.version
        acted, due_ms = _next_action(game_id, state, starts)
        if acted is None and state.server_seed is not None:
            on_revealed(context().store, game_id)  # ended and revealed: answers never change
        if acted is not None:
            done[acted] += 1
        elif followups.finish_round(game_id, version, seen, due_ms):
            break
        if rounds >= MAX_ROUNDS:  # hand over to a fresh job rather than hold a worker
            followups.request(game_id, version)
            break
    outcome: JSON = {"game_id": game_id, "version": version, "rounds": rounds, **done}
    log.debug(
        "job",
        extra={
            "job": "process_game",
            "game_id": game_id,
            "version": version,
            "rounds": rounds,
            "outcome": "ok",
            "duration_ms": round((time.perf_counter() - started) * 1000, 2),
        },
    )
    return outcome


def _next_action(
    game_id: str, state: table.Game, starts: dict[int, int]
) -> tuple[str | None, int | None]:
    """Take the one thing due now (a system step, a bot's move, a timed-out
    turn's move) and say which; or nothing, and when something next falls due."""
    ctx = context()
    if table.pending(state) is not None:
        DEFAULT_CACHE.put(state)
        if ctx.service.advance(game_id):
            return "steps", None
    if state.over or not state.seated:
        return None, None
    now = now_ms()
    delay_ms = int(ctx.runtime.settings.bot_delay_s * 1000)
    limit = state.turn_timeout_s
    due: list[int] = []
    for seat in sorted(_to_act(state)):
        began = starts.get(seat)
        if _automatic(state, seat):
            at = (began if began is not None else now) + delay_ms
            if at > now:
                due.append(at)
                continue
            move = state.engine.bot_move(state.engine_state, seat)
            _play(game_id, seat, move, state, timed_out=False)
            return "bots", None
        if limit is None or began is None:
            continue
        at = began + int(float(limit) * 1000)
        if at > now:
            due.append(at)
            continue
        move = state.engine.timeout_move(state.engine_state, seat)
        _play(game_id, seat, move, state, timed_out=True)
        return "timeouts", None
    return None, min(due, default=None)


# -- projection ---------------------------------------------------------------------
def project(game_id: str) -> table.Game:
    """Fold the events after the snapshot into a newer snapshot (see
    :func:`project_with_starts`)."""
    return project_with_starts(game_id)[0]


def project_with_starts(game_id: str) -> tuple[table.Game, dict[int, int]]:
    """Fold the events after the snapshot into a newer snapshot; the state and
    when each seat's current turn began (ms).

    While folding it keeps the read model's extras: when each seat's current
    turn began (for bots' delays and timeouts) and the chip ledger of settled
    Azi pots.
    """
    ctx = context()
    store: EventStore = ctx.store
    redis = store.redis
    marks_raw = redis.hgetall(keys.meta(game_id))
    state = store.load_snapshot(game_id)
    marks: dict[str, str] = {
        k.decode(): v.decode()
        for k, v in cast(dict[bytes, bytes], marks_raw).items()
        if k.startswith(TURN_FIELD.encode())
    }
    after = state.version if state is not None else 0
    tail = store.read(game_id, after=after)
    if not tail:
        if state is None:
            raise LookupError(f"no game {game_id}")
        return state, _starts(marks)
    turn_marks: dict[str, str] = {}
    cleared: set[str] = set()
    ledger: dict[str, int] = {}
    for stored in tail:
        before = _to_act(state)
        state = table.apply(state, stored.event)
        after_act = _to_act(state)
        for seat in after_act - before:
            turn_marks[f"{TURN_FIELD}{seat}"] = f"{stored.version}:{stored.at_ms}"
            cleared.discard(f"{TURN_FIELD}{seat}")
        for seat in before - after_act:
            cleared.add(f"{TURN_FIELD}{seat}")
            turn_marks.pop(f"{TURN_FIELD}{seat}", None)
        ledger.update(_ledger_entries(stored))
    assert state is not None
    pipe = redis.pipeline(transaction=False)
    if cleared:
        pipe.hdel(keys.meta(game_id), *sorted(cleared))
    if turn_marks:
        pipe.hset(keys.meta(game_id), mapping=cast(Any, turn_marks))
    for field, amount in ledger.items():
        pipe.hsetnx(keys.ledger(game_id), field, amount)
    pipe.execute()
    fairness.record(redis, game_id, tail, state)
    store.save_snapshot(game_id, state)
    lag.projected(redis, game_id, store.version(game_id) - state.version)
    for field in cleared:
        marks.pop(field, None)
    marks.update(turn_marks)
    return state, _starts(marks)


def _starts(marks: dict[str, str]) -> dict[int, int]:
    return {int(k[len(TURN_FIELD) :]): int(v.partition(":")[2]) for k, v in marks.items()}


def _to_act(state: table.Game | None) -> set[int]:
    if state is None or not state.seated or state.over:
        return set()
    if table.pending(state) is not None:
        return set()
    return set(state.engine.to_act(state.engine_state))


def _ledger_entries(stored: StoredEvent) -> dict[str, int]:
    """Chip movements of a settled pot: each seat's payout minus what it put in."""
    event = stored.event
    payouts = getattr(event, "payouts", None)
    contributions = getattr(event, "contributions", None)
    if event.type != "PotSettled" or payouts is None or contributions is None:
        return {}
    return {
        f"{stored.version}:{seat}": int(paid) - int(put)
        for seat, (paid, put) in enumerate(zip(payouts, contributions, strict=True))
        if paid or put
    }


def ledger_entries(game_id: str) -> dict[str, int]:
    raw = cast(dict[bytes, bytes], context().store.redis.hgetall(keys.ledger(game_id)))
    return {k.decode(): int(v) for k, v in raw.items()}


def turn_starts(game_id: str) -> dict[int, int]:
    """When each seat's current turn began (ms), as the projection recorded it."""
    raw = cast(dict[bytes, bytes], context().store.redis.hgetall(keys.meta(game_id)))
    prefix = TURN_FIELD.encode()
    return {
        int(k[len(prefix) :]): int(v.decode().partition(":")[2])
        for k, v in raw.items()
        if k.startswith(prefix)
    }


# -- bots and timeouts -------------------------------------------------------------
def _automatic(state: table.Game, seat: int) -> bool:
    """A seat the workers move for: a bot, or a person marked away."""
    return table.plays_automatically(state, seat)


def _play(game_id: str, seat: int, move: JSON, state: table.Game, *, timed_out: bool) -> bool:
    try:
        context().service.play_as(
            game_id, seat, move, expected_version=state.version, timed_out=timed_out, state=state
        )
    except VersionConflict:
        return False  # someone else moved first; the next round sees it
    except RuleError as exc:
        log.error(
            "automatic move refused",
            extra={
                "game_id": game_id,
                "version": state.version,
                "seat": seat,
                "reason": str(exc),
            },
        )
        raise
    return True


def enforce_timeouts(game_id: str, now_ms: int | None = None) -> int:
    """Move for every human seat whose turn has lasted longer than the table allows."""
    ctx = context()
    state = ctx.service.load(game_id)
    limit = state.turn_timeout_s
    if limit is None:
        return 0
    now_ms = int(time.time() * 1000) if now_ms is None else now_ms
    starts = turn_starts(game_id)
    moved = 0
    for seat in sorted(_to_act(state)):
        if table.plays_automatically(state, seat) or seat not in starts:
            continue
        if now_ms - starts[seat] < limit * 1000:
            continue
        move = state.engine.timeout_move(state.engine_state, seat)
        if _play(game_id, seat, move, state, timed_out=True):
            moved += 1
            state = ctx.service.load(game_id)
    return moved
