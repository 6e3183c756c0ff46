"""The drains: the list of games whose follow-up is due
(:func:`keys.drains_pending`) and the leased slots of the drain jobs serving it
(:func:`keys.drain_slot`), on the queue's Redis; :class:`Drains` owns both.
See :mod:`service.store.followups` for how follow-ups are coalesced.
"""

from __future__ import annotations

import itertools
import os
import secrets
import time
from collections.abc import Callable
from functools import partial
from typing import Any, Final

from . import keys, lua
from .append import Dispatch
from .clients import block_slice_ms


class _SlotTokens:
    """Tokens for the drain slots (:meth:`Drains.dispatch`, :meth:`Drains.inline`):
    a random prefix drawn once per process (a forked child draws its own) and
    a counter, unique without a system call per move. A token only tells one
    drain's lease from another's; it guards nothing secret."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.prefix = secrets.token_hex(6)
        self._count = itertools.count()

    def next(self) -> str:
        return f"{self.prefix}{next(self._count):x}"


_TOKENS: Final = _SlotTokens()
os.register_at_fork(after_in_child=_TOKENS.reset)

LOST: Final = object()
"""What :meth:`Drains.take` returns to a drain whose slot is no longer its own."""


class Drains:
    """The list of games whose follow-up is due and the slots of the drain jobs
    serving it, on the queue's Redis."""

    def __init__(
        self,
        redis: Any,
        queue: str,
        slots: Callable[[], int],
        lease_s: float,
        linger_s: float,
        enqueue: Callable[[int, str], None],
    ) -> None:
        """``slots()``: how many drains may run at once (about the worker processes
        serving the queue); ``linger_s``: how long a drain that has served a game
        waits for the next before it ends (0: it ends once the list is empty);
        ``enqueue(slot, token)`` enqueues a drain job."""
        self.redis = redis
        self.pending = keys.drains_pending(queue)
        self.slot_key = partial(keys.drain_slot, queue)
        self.slots = slots
        self.lease_ms = int(lease_s * 1000)
        self.linger_s = linger_s
        self.enqueue = enqueue
        self._keys_made: tuple[str, ...] | None = None
        self._dispatch = self.redis.register_script(lua.DRAIN_DISPATCH)
        self._take = self.redis.register_script(lua.DRAIN_TAKE)
        self._release = self.redis.register_script(lua.DRAIN_RELEASE)
        self._free = self.redis.register_script(lua.DRAIN_FREE)

    def dispatch(self, game_id: str = "") -> int | None:
        """Put ``game_id`` on the list (none: only make sure the list is served)
        and, if a slot is free, take it and enqueue a drain for it; the slot
        taken, or ``None`` when the drains running will serve the list."""
        token = _TOKENS.next()
        slot_keys = self._slot_keys()
        slot = int(
            self._dispatch(keys=[self.pending, *slot_keys], args=[game_id, self.lease_ms, token])
        )
        if slot < 0:
            return None
        self.enqueue(slot, token)
        return slot

    def inline(self) -> Dispatch:
        """What an append needs to do :meth:`dispatch`'s work itself, in its own
        script (:class:`service.store.Dispatch`), when it sets its game's marker
        anew: the list, the slots and a fresh token."""
        return Dispatch(self.pending, self._slot_keys(), self.lease_ms, _TOKENS.next())

    def _slot_keys(self) -> tuple[str, ...]:
        """The keys of the slots drains may hold now (at least one)."""
        count = max(1, self.slots())
        made = self._keys_made
        if made is None or len(made) != count:
            made = self._keys_made = tuple(self.slot_key(i) for i in range(count))
        return made

    def take(self, slot: int, token: str) -> str | object | None:
        """The next game for the drain in ``slot`` (its lease renewed), ``None``
        when the list is empty, or :data:`LOST` when the slot is not its own."""
        got = self._take(keys=[self.pending, self.slot_key(slot)], args=[token, self.lease_ms])
        if got is None:
            return LOST
        return bytes(got).decode() or None

    def wait(self, timeout_s: float) -> str | None:
        """The next game to come on the list within ``timeout_s`` (``None``: none came)."""
        # each read ends well before the client's socket timeout
        slice_s = block_slice_ms(self.redis, max(1, int(timeout_s * 1000))) / 1000
        deadline = time.monotonic() + timeout_s
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            got = self.redis.brpop([self.pending], timeout=min(slice_s, left))
            if got is not None:
                return bytes(got[1]).decode()

    def release(self, slot: int, token: str) -> bool:
        """Free the drain's slot if the list is empty: True (the drain may end),
        False (a game came in: take it)."""
        keys_ = [self.pending, self.slot_key(slot)]
        return bool(self._release(keys=keys_, args=[token]))

    def hand_over(self, slot: int, token: str) -> int | None:
        """Free the drain's slot whatever is left and see the list served by a
        fresh drain (a guard on a job's length, or after a failure)."""
        self._free(keys=[self.slot_key(slot)], args=[token])
        return self.dispatch()

    def backlog(self) -> int:
        """How many games wait on the list."""
        return int(self.redis.llen(self.pending))
