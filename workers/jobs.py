"""RQ jobs: everything that happens between seats' moves.

Every job is safe to run twice and safe to race with another worker: each
write is either an append with an expected version (a duplicate is refused
by the store and ignored here) or an idempotent write (``HSETNX`` into the
ledger, a snapshot that only moves forward).
"""

from __future__ import annotations

import contextlib
import logging
import time
from datetime import UTC, datetime
from typing import Any, Final, cast

from service import keys, lag
from service.answers import on_revealed
from service.engines import game as table
from service.engines.base import JSON, RuleError
from service.errors import GameNotFound
from service.retention import periodic_pass
from service.store import EventStore, StoredEvent, VersionConflict

from .context import context

log = logging.getLogger("cardroom.jobs")

TURN_FIELD = "turn:"
FOLLOWUP_ID: Final = "cardroom-followup-{game_id}-{version}"
"""The id :meth:`service.runtime.Runtime.enqueue_followup` gives a follow-up job."""
ABANDONED_AFTER_S: Final = 30.0
"""A follow-up job "started" this long ago is taken for abandoned by a killed worker
(follow-ups take milliseconds; running one twice is safe)."""


def process_game(game_id: str) -> JSON:
    """The follow-up of every append: system steps, projection, bots, timeouts."""
    started = time.perf_counter()
    ctx = context()
    steps = ctx.service.advance(game_id)
    state = project(game_id)
    if state.server_seed is not None:  # ended and revealed: its answers never change
        on_revealed(ctx.store, game_id)
    bots = play_bots(game_id, state)
    timed_out = enforce_timeouts(game_id)
    schedule_timeout_check(game_id, state.version)
    outcome: JSON = {
        "game_id": game_id,
        "version": state.version,
        "steps": steps,
        "bots": bots,
        "timeouts": timed_out,
    }
    log.info(
        "job",
        extra={
            "job": "process_game",
            "game_id": game_id,
            "version": state.version,
            "outcome": "ok",
            "duration_ms": round((time.perf_counter() - started) * 1000, 2),
        },
    )
    return outcome


# -- projection ---------------------------------------------------------------------
def project(game_id: str) -> table.Game:
    """Fold the events after the snapshot into a newer snapshot.

    While folding it keeps the read model's extras: when each seat's current
    turn began (for timeouts) and the chip ledger of settled Azi pots.
    """
    ctx = context()
    store: EventStore = ctx.store
    state = store.load_snapshot(game_id)
    after = state.version if state is not None else 0
    tail = store.read(game_id, after=after)
    if not tail:
        if state is None:
            raise LookupError(f"no game {game_id}")
        return state
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
    redis = store.redis
    pipe = redis.pipeline(transaction=False)
    if cleared:
        pipe.hdel(keys.meta(game_id), *sorted(cleared))
    if turn_marks:
        pipe.hset(keys.meta(game_id), mapping=cast(Any, turn_marks))
    for field, amount in ledger.items():
        pipe.hsetnx(keys.ledger(game_id), field, amount)
    pipe.execute()
    store.save_snapshot(game_id, state)
    lag.projected(redis, game_id, store.version(game_id) - state.version)
    return state


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


# -- bots ---------------------------------------------------------------------------
def play_bots(game_id: str, state: table.Game) -> int:
    """Play (or schedule, with a thinking delay) the move of every bot to act."""
    ctx = context()
    seats = [s for s in _to_act(state) if _is_bot(state, s)]
    delay = ctx.runtime.settings.bot_delay_s
    played = 0
    for seat in sorted(seats):
        if delay > 0:
            from rq.exceptions import DuplicateJobError

            with contextlib.suppress(DuplicateJobError):  # a twin job scheduled it already
                ctx.runtime.queue.enqueue_in(
                    _delta(delay),
                    bot_turn,
                    game_id,
                    seat,
                    state.version,
                    job_id=f"cardroom-bot-{game_id}-{state.version}-{seat}",
                    unique=True,
                    **ctx.runtime.job_options(game_id, state.version),
                )
        elif bot_turn(game_id, seat, state.version):
            played += 1
            break  # the state moved on; the follow-up of that move plays the next bot
    return played


def bot_turn(game_id: str, seat: int, version: int) -> bool:
    """Play a bot's move if the game is still where the bot saw it."""
    ctx = context()
    state = ctx.service.load(game_id)
    if state.version != version or seat not in _to_act(state):
        return False
    move = state.engine.bot_move(state.engine_state, seat)
    return _play(game_id, seat, move, state.version, timed_out=False)


def _is_bot(state: table.Game, seat: int) -> bool:
    info = state.seats[seat]
    return info is not None and info.bot


def _play(game_id: str, seat: int, move: JSON, version: int, *, timed_out: bool) -> bool:
    try:
        context().service.play_as(
            game_id, seat, move, expected_version=version, timed_out=timed_out
        )
    except VersionConflict:
        return False  # someone else moved first; the newer follow-up takes over
    except RuleError as exc:
        log.error(
            "automatic move refused",
            extra={"game_id": game_id, "version": version, "seat": seat, "reason": str(exc)},
        )
        raise
    return True


# -- timeouts -----------------------------------------------------------------------
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
        if _is_bot(state, seat) or seat not in starts:
            continue
        if now_ms - starts[seat] < limit * 1000:
            continue
        move = state.engine.timeout_move(state.engine_state, seat)
        if _play(game_id, seat, move, state.version, timed_out=True):
            moved += 1
            state = ctx.service.load(game_id)
            if seat in _to_act(state):
                continue
    return moved


def schedule_timeout_check(game_id: str, version: int) -> None:
    """Come back when the earliest pending turn of the game times out."""
    wait_s = next_timeout_in(game_id)
    if wait_s is None:
        return
    ctx = context()
    from rq.exceptions import DuplicateJobError

    with contextlib.suppress(DuplicateJobError):
        ctx.runtime.queue.enqueue_in(
            _delta(wait_s + 0.05),
            process_game,
            game_id,
            job_id=f"cardroom-timeout-{game_id}-{version}",
            unique=True,
            **ctx.runtime.job_options(game_id, version),
        )


def next_timeout_in(game_id: str) -> float | None:
    """Seconds until the earliest pending turn times out (for scheduling)."""
    ctx = context()
    state = ctx.service.load(game_id)
    limit = state.turn_timeout_s
    if limit is None:
        return None
    humans = {s: at for s, at in turn_starts(game_id).items() if not _is_bot(state, s)}
    if not humans:
        return None
    due_ms = min(humans.values()) + float(limit) * 1000
    return max(0.0, (due_ms - time.time() * 1000) / 1000)


# -- self-healing -------------------------------------------------------------------
def reconcile(limit: int = 500) -> JSON:
    """Find games left behind (a crash between an append and its enqueue, a
    lagging projection, an unsettled pot, a missing deal, an overdue timeout,
    a bot that did not move) and enqueue their follow-up."""
    ctx = context()
    store: EventStore = ctx.store
    enqueued = 0
    scanned = 0
    now_ms = int(time.time() * 1000)
    for status in ("playing", "seating", "ended"):
        cursor: Any = None
        while scanned < limit:
            items, cursor = store.list_games(status=status, limit=100, cursor=cursor)
            for item in items:
                scanned += 1
                game_id = item.game_id
                try:
                    needed = _needs_work(game_id, now_ms)
                except GameNotFound:  # indexed, but its stream is gone (e.g. a flushed db)
                    log.warning("reconcile: indexed game has no events", extra={"game_id": game_id})
                    continue
                if needed:
                    version = store.version(game_id)
                    _drop_dead_followup(game_id, version)
                    ctx.runtime.enqueue_followup(game_id, version)
                    enqueued += 1
            if cursor is None:
                break
    periodic_pass(store)  # retention: archive, expire unjoined tables, watch memory
    log.info("job", extra={"job": "reconcile", "scanned": scanned, "enqueued": enqueued})
    return {"scanned": scanned, "enqueued": enqueued}


def _drop_dead_followup(game_id: str, version: int) -> None:
    """Delete the follow-up job of ``game_id`` at ``version`` if it will never run again.

    RQ refuses to enqueue an id that exists, and a follow-up that failed for
    good stays in the failed registry for days, one whose worker was killed
    stays "started" until RQ's maintenance notices: the reconciler's enqueue
    would be refused without a word and the game would wait for ever.
    """
    from rq.exceptions import NoSuchJobError
    from rq.job import Job, JobStatus

    job_id = FOLLOWUP_ID.format(game_id=game_id, version=version)
    try:
        job = Job.fetch(job_id, connection=context().runtime.queue_redis)
    except NoSuchJobError:
        return
    status = job.get_status(refresh=False)
    started = job.started_at
    if started is not None and started.tzinfo is None:
        started = started.replace(tzinfo=UTC)
    abandoned = (
        status == JobStatus.STARTED
        and started is not None
        and (datetime.now(UTC) - started).total_seconds() > ABANDONED_AFTER_S
    )
    done = status in (JobStatus.FAILED, JobStatus.FINISHED, JobStatus.STOPPED, JobStatus.CANCELED)
    if done or abandoned:
        log.warning(
            "reconcile: running a dead follow-up again",
            extra={"game_id": game_id, "version": version, "job_status": str(status)},
        )
        job.delete()


def _needs_work(game_id: str, now_ms: int) -> bool:
    ctx = context()
    store: EventStore = ctx.store
    version = store.version(game_id)
    if version == 0:
        return False
    if store.snapshot_version(game_id) < version:
        return True
    state = ctx.service.load(game_id)
    if table.pending(state) is not None:
        return True
    if state.over:
        return False
    to_act = _to_act(state)
    if any(_is_bot(state, s) for s in to_act):
        return True
    limit = state.turn_timeout_s
    if limit is None:
        return False
    starts = turn_starts(game_id)
    return any(seat in starts and now_ms - starts[seat] >= limit * 1000 for seat in to_act)


def _delta(seconds: float) -> Any:
    from datetime import timedelta

    return timedelta(seconds=seconds)
