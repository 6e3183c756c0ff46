"""The one clock: Redis's ``TIME``.

Every time that decides a game — when an event happened, when a turn times
out, when a bot's thinking delay is over, when a game has been idle long
enough to abandon, when a timer in the timers index is due, when a follow-up's
watchdog or a retry's backoff fires, when a rate budget shared by the API
processes refills — is read from Redis, never from the clock of the process
that happens to decide: a worker whose clock runs ahead would time seats out
early, one whose clock runs behind would never time them out.

Two ways to read it, both named here so the formula lives in one place:

- inside a script: :data:`LUA` is the header the scripts that need the time
  start with; ``clock_ms()`` is the server's time in ms (as text, exact on
  any Lua), ``turn_deadline(began_ms, limit_ms)`` the moment a turn that
  began at ``began_ms`` times out;
- from Python, once per step: :class:`ServerClock` (``TIME``, or :data:`NOW`
  on a cluster, usually one command more on a pipeline already going to
  Redis), and :func:`turn_deadline_ms` with :func:`limit_ms`, the same
  formula.

On Redis Cluster a script runs on the master of its keys' slot, so the time
read is that master's: the clock of the game's own master for everything
about one game (the same clock that stamped its events), the shard's master
for the timers index. Keep the masters' clocks in step (NTP) as for any
cluster; a difference between them only moves when a timer is claimed, not
when a turn times out (the worker decides that on the game's master's time).

Local clocks still measure durations (``time.monotonic``: how long to wait,
how long a drain has run) and stamp logs and metrics; see the operations
guide.
"""

from __future__ import annotations

import time
from typing import Any, Final

from redis.cluster import RedisCluster

from .clients import run_script

LUA: Final = """
local function clock_ms()
  local t = redis.call('TIME')
  -- the ms of the microseconds, zero-padded: '1' .. six digits, then three of them
  return t[1] .. string.sub(1000000 + t[2], 2, 4)
end
local function turn_deadline(began_ms, limit_ms)
  return tonumber(began_ms) + tonumber(limit_ms)
end
"""
"""The header of every script that reads the time: ``clock_ms()`` and
``turn_deadline(began_ms, limit_ms)``."""

NOW: Final = LUA + "return tonumber(clock_ms())\n"
"""KEYS[1] (optional): a key of the slot whose master's time is wanted.
Returns the server's time in ms."""


def limit_ms(limit_s: float | int | str) -> int:
    """A table's turn limit, in ms (what the scripts are handed)."""
    return int(float(limit_s) * 1000)


def turn_deadline_ms(began_ms: int, limit_s: float | int | str) -> int:
    """When a turn that began at ``began_ms`` (its event's time) times out: the
    same formula as the scripts' ``turn_deadline``."""
    return began_ms + limit_ms(limit_s)


class ServerClock:
    """Redis's time, read from Python (see the module's docstring): the ``TIME``
    command on a standalone Redis, :data:`NOW` on the master of a key's slot
    on a cluster (where a pipeline may not carry ``TIME``, and ``TIME`` alone
    would ask any node).

    Each reading is kept with this process's monotonic clock, so that
    :meth:`estimate_ms` can carry Redis's time on between readings without a
    round trip (for a watchdog's time, not for deciding a turn)."""

    def __init__(self, redis: Any) -> None:
        self.redis = redis
        self.cluster = isinstance(redis, RedisCluster)
        self.script = redis.register_script(NOW)
        self._reading: tuple[int, float] | None = None
        """The last reading: Redis's time (ms) and ``time.monotonic()`` then."""

    def now_ms(self, key: str | None = None) -> int:
        """The time now on the master of ``key``'s slot (any node: ``None``), in ms."""
        if self.cluster and key is not None:
            return self.reply_ms(self.script(keys=[key], args=[]))
        return self.reply_ms(self.redis.time())

    def queue_now(self, pipe: Any, key: str) -> None:
        """:meth:`now_ms` queued on ``pipe``: :meth:`reply_ms` of its reply is the
        time in ms."""
        if self.cluster:
            run_script(self.script, [key], [], pipe)
        else:
            pipe.time()

    def reply_ms(self, reply: Any) -> int:
        """The time in ms from the reply of ``TIME`` (seconds, microseconds) or of
        :data:`NOW` (ms), kept as the last reading."""
        if isinstance(reply, tuple | list):
            ms = int(reply[0]) * 1000 + int(reply[1]) // 1000
        else:
            ms = int(reply)
        self._reading = (ms, time.monotonic())
        return ms

    def estimate_ms(self) -> int:
        """Redis's time now as this process's monotonic clock carries it on from
        the last reading (read first if there is none): no wall clock of this
        process is involved, and it is off by no more than the reading's round
        trip and the clocks' drift since (microseconds a second)."""
        reading = self._reading
        if reading is None:
            self.now_ms()
            reading = self._reading
            assert reading is not None
        ms, at = reading
        return ms + int((time.monotonic() - at) * 1000)
