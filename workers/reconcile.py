"""The reconciler: finds every unfinished game left behind and pokes its follow-up.

A game can be left behind by a crash between an append and its enqueue, a
follow-up job lost with its worker, a job that failed past its retries, or a
lost timer. Each pass checks a bounded batch of games, resuming where the
last pass stopped: its cursor (status, index shard, creation time, game id)
is kept in Redis, so passes run by any process continue one sweep through
all seating and playing games; a sweep of N games costs O(N) over N / batch
passes. For each game one pipelined round trip tells its version, its
snapshot's, whether its follow-up marker is live and its timer; only a
projected game with neither marker nor timer is loaded, to see whether it
waits for a system step, a bot or a timed-out turn.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Final

from service.engines import table
from service.engines.base import JSON
from service.retention import periodic_pass
from service.store import keys
from service.store.errors import GameNotFound

from .context import WorkerContext, context
from .jobs import _automatic, _to_act, turn_starts

log = logging.getLogger("cardroom.reconcile")

STATUSES: Final = ("seating", "playing")
"""The statuses of unfinished games (an ended game's last steps are taken by
the follow-up of the append that ended it, and a lost one shows as a
projection behind, which the store reports for any game checked)."""
TIES: Final = 64
"""Extra entries read past a page, for games created in the same millisecond
as the cursor's."""
OVERDUE_LEASES: Final = 3
"""A timer this many leases past due has no live claimer: poke it here."""


def now_ms() -> int:
    """Redis's time now (ms): the one clock the timers' scores, the events'
    times and the games' activity are in."""
    return int(context().store.now_ms())


@dataclass
class Sweep:
    """Where the sweep over the unfinished games stands (kept in Redis between
    passes, :attr:`service.store.EventStore.reconciler`)."""

    status_i: int
    shard: int
    score: float
    member: str
    started_ms: int
    found: int
    checked: int

    @classmethod
    def read(cls, raw: dict[str, str], now: int) -> Sweep:
        return cls(
            status_i=int(raw.get("status", 0)) % len(STATUSES),
            shard=int(raw.get("shard", 0)) % keys.INDEX_SHARDS,
            score=float(raw.get("score", "-inf")),
            member=raw.get("member", ""),
            started_ms=int(raw.get("sweep_started_ms", now)),
            found=int(raw.get("found", 0)),
            checked=int(raw.get("checked", 0)),
        )

    def next_shard(self) -> bool:
        """Move on to the next shard (and status); True once every one was swept."""
        self.shard, self.score, self.member = self.shard + 1, float("-inf"), ""
        if self.shard == keys.INDEX_SHARDS:
            self.shard, self.status_i = 0, self.status_i + 1
        return self.status_i == len(STATUSES)

    def mapping(self, now: int, swept: bool) -> dict[str, Any]:
        """What is kept for the next pass: a new sweep's start once this one is done."""
        if swept:
            return {
                "status": 0,
                "shard": 0,
                "score": "-inf",
                "member": "",
                "sweep_started_ms": now,
                "found": 0,
                "checked": 0,
                "swept_ms": now,
                "last_found": self.found,
                "last_checked": self.checked,
                "last_sweep_ms": now - self.started_ms,
            }
        return {
            "status": self.status_i,
            "shard": self.shard,
            "score": repr(self.score),
            "member": self.member,
            "sweep_started_ms": self.started_ms,
            "found": self.found,
            "checked": self.checked,
        }


def reconcile_pass(limit: int | None = None) -> JSON:
    """Check the next ``limit`` games (``CARDROOM_RECONCILE_BATCH``) of the
    sweep; poke those left behind. Returns what it did."""
    ctx = context()
    budget = limit or ctx.runtime.settings.reconcile_batch
    now = now_ms()
    sweep = Sweep.read(ctx.store.reconciler.read(), now)
    scanned, enqueued, swept = _scan(ctx, sweep, budget, now)
    sweep.checked += scanned
    ctx.store.reconciler.write(sweep.mapping(now, swept))
    # Games waiting on the drains' list and a slot free (its drain lost with its
    # worker, say): a fresh drain for them.
    kicked = ctx.runtime.drains.dispatch() is not None
    periodic_pass(ctx.store)  # retention: archive, expire unjoined tables, watch memory
    if enqueued:
        log.warning(
            "reconcile: games left behind poked",
            extra={"job": "reconcile", "scanned": scanned, "enqueued": enqueued},
        )
    return {"scanned": scanned, "enqueued": enqueued, "swept": swept, "drain_started": kicked}


def _scan(ctx: WorkerContext, sweep: Sweep, budget: int, now: int) -> tuple[int, int, bool]:
    """Check up to ``budget`` games from where ``sweep`` stands, poking those left
    behind: how many were scanned, how many poked, whether the sweep is done."""
    scanned = enqueued = 0
    while scanned < budget:
        want = budget - scanned
        page = ctx.store.index.scan_page(
            sweep.shard, STATUSES[sweep.status_i], sweep.score, want + TIES
        )
        after = [
            (m.decode(), s)
            for m, s in page
            if s > sweep.score or (s == sweep.score and m.decode() > sweep.member)
        ]
        taken = after[:want]
        if taken:
            hits = _heal([m for m, _ in taken], now)
            enqueued += hits
            sweep.found += hits
            scanned += len(taken)
            sweep.member, sweep.score = taken[-1]
        if len(taken) < len(after) or len(page) == want + TIES:
            continue  # more in this shard (the loop ends when the budget is spent)
        if sweep.next_shard():
            return scanned, enqueued, True
    return scanned, enqueued, False


def _heal(game_ids: list[str], now: int) -> int:
    """Poke the follow-up of every game of ``game_ids`` left behind; how many."""
    ctx = context()
    followups = ctx.runtime.followups
    overdue_ms = OVERDUE_LEASES * followups.lease_ms
    healed = 0
    for game_id, (version, projected, marked, due) in zip(
        game_ids, followups.pending(game_ids), strict=True
    ):
        if version == 0 or marked:
            continue  # no stream (nothing to do), or a follow-up is on it
        if projected < version:
            reason = "projection behind"
        elif due is not None:
            if due > now - overdue_ms:
                continue  # its timer will fire
            reason = "timer overdue"
        else:
            try:
                if ctx.service.abandon_if_idle(game_id, now):
                    continue  # its GameAbandoned event brings its own follow-up
                needed = _needs_work(game_id, now)
            except GameNotFound:
                continue
            if not needed:
                continue
            reason = "work due, no timer"
        if followups.request(game_id, version):
            healed += 1
            log.warning(
                "reconcile: poked a game left behind",
                extra={"game_id": game_id, "version": version, "reason": reason},
            )
    return healed


def _needs_work(game_id: str, now: int) -> bool:
    """Whether a projected game with no follow-up and no timer waits for one:
    a system step, a bot to move, a human turn whose clock runs."""

    state = context().service.load(game_id)
    if table.pending(state) is not None:
        return True
    if state.over:
        return False
    to_act = _to_act(state)
    if any(_automatic(state, s) for s in to_act):
        return True
    if state.turn_timeout_s is None:
        return False
    starts = turn_starts(game_id)
    return any(seat in starts for seat in to_act)
