"""Coalesced follow-ups and the timers index: :class:`Followups` owns the
games' follow-up markers (:func:`keys.followup`), failure counts
(:func:`keys.failures`) and the timers index (:func:`keys.due`).

A move that leaves nothing to do but its fold needs no follow-up at all: its
append projects itself (:class:`service.store.Projection`) when no follow-up
is pending. Every other append asks for one.

A game has at most one follow-up queued or running. Its marker
(:func:`service.store.keys.followup`) is a counter that every append bumps inside
the append script itself; the append that sets it anew (from nothing) is the
one whose caller asks for the follow-up. The follow-up goes round (advance,
project, bots, timeouts) and lets the marker go with
:data:`service.store.lua.FOLLOWUP_DONE` only if the stream did not move and
nobody bumped the marker since the round began; otherwise it goes round again.
The marker expires unless the running follow-up refreshes it each round, so
one lost with its worker (or an API killed between its append and asking)
holds nothing for long: the reconciler finds the game behind with no marker
and pokes it.

A follow-up is not an RQ job of its own: RQ spends several milliseconds of a
worker's CPU and some twenty round trips on every job, more than the follow-up
itself. The game goes on a list (:func:`service.store.keys.drains_pending`)
served by *drain* jobs (:class:`service.store.drains.Drains`): each holds one of a few leased slots,
takes games off the list one after another and, once the list is empty, waits
a moment for more before it frees its slot and ends. Under load a handful of
long jobs serve every move; when the tables are quiet each follow-up costs a
job as before. The slot is freed only while the list is empty, in one script,
so a game added as a drain ends always finds a free slot (and enqueues a new
drain) or a drain that will take it. A drain lost with its worker leaves its
games' markers to expire (the reconciler pokes them) and its slot to a lease.
Where the queue shares the store's standalone Redis, the append script itself
puts a game whose marker it set anew on the list and takes a free slot
(:meth:`service.store.drains.Drains.inline`, :class:`service.store.Dispatch`): the same work as
:meth:`service.store.drains.Drains.dispatch`, with no round trip of its own.

The timers index (:func:`service.store.keys.due`) holds, per game, the time its
follow-up must run again: a bot's thinking delay, a turn timeout, a retry's
backoff, and while a job runs its lease (the job's own watchdog). Every
worker process, the scheduler and the embedded worker claim due entries
atomically (:data:`service.store.lua.CLAIM_DUE` puts each back a lease later, so
an entry whose claimer died fires again) and poke the game's marker. The
job that then runs sets the entry to the game's next due time, or removes it.

Every time here is Redis's (:mod:`service.store.clock`): the claims read
``TIME`` in their script, a retry's backoff is set relative to it by a script
on the index's shard, and a running job's watchdog is Redis's time as last
read (each round and each claim read it) carried on by the monotonic clock.
No process's own wall clock decides when a timer fires.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from . import keys, lua, readmodel
from .clients import run_script
from .clock import ServerClock

CLAIM_BATCH: Final = 100
"""Entries one claim takes from one shard at most."""
WATCHDOG_MARGIN_MS: Final = 1_000
"""A running job's watchdog fires this long after its marker would have
expired, so the poke then finds no marker and enqueues afresh."""


class Followups:
    """The marker and timers of every game, over the event store's Redis."""

    def __init__(self, redis: Any, lease_s: float, enqueue: Callable[[str, int], None]) -> None:
        """``enqueue(game_id, version)`` asks for a follow-up (the process's
        :meth:`service.runtime.Runtime.enqueue_followup`: the drains' list)."""
        self.redis = redis
        self.enqueue = enqueue
        self.lease_ms = int(lease_s * 1000)
        self.shards = keys.INDEX_SHARDS
        self._poke = self.redis.register_script(lua.POKE)
        self._done = self.redis.register_script(lua.FOLLOWUP_DONE)
        self._claim = self.redis.register_script(lua.CLAIM_DUE)
        self._due_in = self.redis.register_script(lua.DUE_IN)
        self.clock = ServerClock(redis)
        """Redis's time (the timers index's scores are in it)."""

    def due_key(self, game_id: str) -> str:
        return keys.due(keys.index_shard(game_id, self.shards))

    # -- the marker ----------------------------------------------------------------
    def request(self, game_id: str, version: int = 0) -> bool:
        """Make sure a follow-up of ``game_id`` will run: bump its marker and
        ask for a follow-up if none was pending. True when this call asked."""
        fresh = bool(self._poke(keys=[keys.followup(game_id)], args=[self.lease_ms]))
        if fresh:
            self.enqueue(game_id, version)
        return fresh

    def begin_round(self, game_id: str) -> str:
        """What a job does as each round begins: read the marker (to tell later
        whether anything happened during the round), refresh its lease, and
        make sure the game's timer fires should this job die."""
        pipe = self.redis.pipeline(transaction=False)
        self.queue_begin(pipe, game_id)
        return self.seen(pipe.execute())

    BEGIN_COMMANDS: Final = 3
    """How many replies :meth:`queue_begin` adds to its pipeline's."""

    def queue_begin(self, pipe: Any, game_id: str) -> None:
        """:meth:`begin_round`'s commands, queued on ``pipe`` (first, so that
        :meth:`seen` finds the marker in the pipeline's replies)."""
        # Redis's time as the last reading and the monotonic clock carry it: no
        # script, no round trip, and no wall clock of this process involved
        watchdog = self.clock.estimate_ms() + self.lease_ms + WATCHDOG_MARGIN_MS
        pipe.get(keys.followup(game_id))
        pipe.pexpire(keys.followup(game_id), self.lease_ms)
        pipe.zadd(self.due_key(game_id), {game_id: watchdog}, lt=True)

    @staticmethod
    def seen(replies: list[Any]) -> str:
        """The marker as :meth:`queue_begin` read it, from its pipeline's replies."""
        return "" if replies[0] is None else bytes(replies[0]).decode()

    def finish_round(self, game_id: str, version: int, seen: str, due_ms: int | None) -> bool:
        """Set the game's next due time (``None``: nothing is due) and let the
        marker go if the stream is still at ``version`` and the marker still
        ``seen``; False: something happened meanwhile, go round again."""
        pipe = self.redis.pipeline(transaction=False)
        self.queue_finish(pipe, game_id, version, seen, due_ms)
        return bool(pipe.execute()[-1])

    def queue_finish(
        self, pipe: Any, game_id: str, version: int, seen: str, due_ms: int | None
    ) -> None:
        """:meth:`finish_round`'s commands, queued last on ``pipe``: whether the
        marker was let go is the pipeline's last reply."""
        if due_ms is None:
            pipe.zrem(self.due_key(game_id), game_id)
        else:
            pipe.zadd(self.due_key(game_id), {game_id: due_ms})
        run_script(
            self._done,
            [keys.events(game_id), keys.followup(game_id), keys.failures(game_id)],
            [version, seen, self.lease_ms],
            pipe,
        )

    def failed(self, game_id: str, backoff_s: list[int]) -> float | None:
        """After a follow-up raised: count the failure, let the marker go and set
        the timer for the retry; the backoff used, or ``None`` once the retries
        are spent (the reconciler tries again on its sweeps)."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.incr(keys.failures(game_id))
        pipe.expire(keys.failures(game_id), 86_400)
        pipe.delete(keys.followup(game_id))
        count = int(pipe.execute()[0])
        if count > len(backoff_s):
            self.redis.zrem(self.due_key(game_id), game_id)
            return None
        wait = backoff_s[count - 1]
        run_script(self._due_in, [self.due_key(game_id)], [game_id, wait * 1000])
        return float(wait)

    def pending(self, game_ids: list[str]) -> list[tuple[int, int, bool, float | None]]:
        """For each game: its version, its snapshot's version, whether its marker
        is live, and its due time (``None``: no timer), in one round trip.

        The reads are not atomic (other clients' commands may run between
        them), so their order matters: the version, then the marker, then the
        snapshot. A marker found gone was let go by a job that had projected
        at least the version read before it, and a snapshot never goes back,
        so a game read as behind with no marker really was left behind. (Read
        the snapshot before the marker, and a job finishing in between would
        look like a lost one: the reconciler would poke the game and warn.)"""
        pipe = self.redis.pipeline(transaction=False)
        for game_id in game_ids:
            pipe.xlen(keys.events(game_id))
            pipe.exists(keys.followup(game_id))
            pipe.hget(keys.snapshot(game_id), readmodel.VERSION)
            pipe.zscore(self.due_key(game_id), game_id)
        replies = pipe.execute()
        out = []
        for i in range(len(game_ids)):
            version, marker, snap, due = replies[4 * i : 4 * i + 4]
            out.append((int(version), int(snap or 0), bool(marker), due))
        return out

    # -- the timers index ------------------------------------------------------------
    def claim_due(self, at_ms: int | None = None) -> list[str]:
        """Claim every entry due by ``at_ms`` (``None``: Redis's time now) in all
        shards: each is put back a lease later, so it fires again unless its
        follow-up settles it.

        A probe (one round trip: Redis's time and each shard's first entry)
        finds the shards with an entry due; only those are claimed, each by a
        script that reads the time of its own shard's master."""
        probe = self.redis.pipeline(transaction=False)
        if at_ms is None:
            self.clock.queue_now(probe, keys.due(0))
        for shard in range(self.shards):
            probe.zrange(keys.due(shard), 0, 0, withscores=True)
        replies = probe.execute()
        at = self.clock.reply_ms(replies.pop(0)) if at_ms is None else at_ms
        shards = [s for s, first in enumerate(replies) if first and first[0][1] <= at]
        if not shards:
            return []
        claim_at = "" if at_ms is None else at_ms
        pipe = self.redis.pipeline(transaction=False)
        for shard in shards:
            args = [claim_at, self.lease_ms, CLAIM_BATCH]
            run_script(self._claim, [keys.due(shard)], args, pipe)
        return [bytes(m).decode() for claimed in pipe.execute() for m in claimed]

    def fire_due(self, at_ms: int | None = None) -> list[str]:
        """Claim the due entries and poke their games; the games claimed."""
        claimed = self.claim_due(at_ms)
        for game_id in claimed:
            self.request(game_id)
        return claimed

    def next_due_ms(self) -> int | None:
        """The earliest due time in the index (``None``: no timer at all)."""
        return self._next_due()[0]

    def next_due_in_ms(self) -> int | None:
        """How long until the earliest due time in the index, by Redis's clock
        (``None``: no timer at all; 0 or less: due already)."""
        due, now = self._next_due(with_now=True)
        return None if due is None else due - now

    def _next_due(self, *, with_now: bool = False) -> tuple[int | None, int]:
        pipe = self.redis.pipeline(transaction=False)
        if with_now:
            self.clock.queue_now(pipe, keys.due(0))
        for shard in range(self.shards):
            pipe.zrange(keys.due(shard), 0, 0, withscores=True)
        replies = pipe.execute()
        now = self.clock.reply_ms(replies.pop(0)) if with_now else 0
        firsts = [int(hit[0][1]) for hit in replies if hit]
        return min(firsts, default=None), now
