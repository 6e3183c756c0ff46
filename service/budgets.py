"""Rate budgets: a GCRA token bucket per key, in Redis (one ``EVALSHA``) or in process.

A budget ``N/minute`` lets ``N`` requests through at once and then one every
``60/N`` seconds: a full bucket of ``N`` tokens refilled at ``N`` a minute.
It is kept as one number per key, the *theoretical arrival time* (GCRA):
the moment the bucket would be full again. Taking a token moves it one
interval later; a request that would move it more than the burst past now
is refused with the time until it would fit. A request may take several
tokens at once (a large page of events, charged by its size): that moves
the number as many intervals later, at most a whole bucket. The key expires when the bucket
is full again, so an idle client leaves nothing behind.

:class:`RedisBudgets` keeps the number in Redis (shared by every API process,
one ``EVALSHA`` per check, a single key so it is safe on a cluster), measured
by Redis's clock (``TIME`` in the script, :mod:`service.store.clock`): the
processes sharing a bucket agree on what "now" is, so one whose clock is off
neither locks an address out for the others nor lets it through early;
:class:`MemoryBudgets` keeps it in the process (the embedded mode, and the
per-process request and move guards), on the process's monotonic clock: it
shares the number with nobody, and a monotonic clock is not moved by a wall
clock set wrong.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from service.errors import RateLimited as RateLimited
from service.store import clock

UNITS: Final = {"second": 1, "minute": 60, "hour": 3600}
RATE_RE: Final = re.compile(r"^\s*(\d+)\s*(?:/|per)\s*(second|minute|hour)s?\s*$", re.IGNORECASE)

GCRA_LUA: Final = (
    clock.LUA
    + """
local now = tonumber(clock_ms())
local interval = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local slack = tonumber(ARGV[3])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
local new_tat = tat + interval
local wait = new_tat - burst - now
if wait > slack then return math.ceil(wait) end
redis.call('SET', KEYS[1], string.format('%.3f', new_tat), 'PX', math.ceil(new_tat - now))
return 0
"""
)
"""KEYS[1]: the bucket; ARGV: interval (ms per token), burst (ms), slack (ms);
now is Redis's time.
Returns 0 when a token was taken, else the milliseconds until one would be."""

SLACK_MS: Final = 1.0
"""How far past the burst a charge may reach and still be taken: the rounding of
sums of fractional intervals (``7/second`` is 142.857… ms a token) on the
clocks' large numbers, so that a bucket of ``N`` always takes ``N`` at once."""


@dataclass(frozen=True, slots=True)
class Rate:
    """``count`` requests per ``period_s`` seconds, all of them at once if need be."""

    count: int
    period_s: int

    @classmethod
    def parse(cls, text: str) -> Rate:
        """``"60/minute"`` (or ``"60 per minute"``); :class:`ValueError` otherwise."""
        match = RATE_RE.match(text)
        if match is None or int(match.group(1)) < 1:
            raise ValueError(
                f"bad rate {text!r}: write N/second, N/minute or N/hour with N at least 1"
            )
        return cls(int(match.group(1)), UNITS[match.group(2).lower()])

    @property
    def burst_ms(self) -> float:
        return float(self.period_s * 1000)

    def charge_ms(self, tokens: int = 1) -> float:
        """How far ``tokens`` move the bucket's number (:func:`fitting`): exactly
        :attr:`burst_ms` for a whole bucket, so that an empty bucket always
        takes one."""
        return self.period_s * 1000 * fitting(self, tokens) / self.count

    def __str__(self) -> str:
        unit = next(name for name, seconds in UNITS.items() if seconds == self.period_s)
        return f"{self.count} per {unit}"


def fitting(rate: Rate, tokens: int) -> int:
    """``tokens`` (at least 1), but never more than a full bucket: a request
    charged more than ``rate.count`` would wait for ever, so it takes all of it."""
    return min(max(1, tokens), rate.count)


class RedisBudgets:
    """Buckets in Redis: one ``EVALSHA`` of :data:`GCRA_LUA` per check."""

    def __init__(self, client: Any) -> None:
        self._script = client.register_script(GCRA_LUA)

    def take(self, key: str, rate: Rate, tokens: int = 1) -> float:
        """0 when ``tokens`` were taken from ``key``'s bucket, else the ms to wait."""
        args = [rate.charge_ms(tokens), rate.burst_ms, SLACK_MS]
        return float(self._script(keys=[key], args=args))


class MemoryBudgets:
    """Buckets in this process (thread-safe); expired buckets are dropped as it grows."""

    PRUNE_AT: Final = 10_000

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        """Seconds from any fixed point (a test may pass its own clock)."""
        self._tat: dict[str, float] = {}
        self._lock = threading.Lock()

    def take(self, key: str, rate: Rate, tokens: int = 1) -> float:
        now = self.clock() * 1000
        with self._lock:
            # Reckoned from now, not on the clock's own large numbers, where
            # ``(now + burst) - burst`` need not be ``now``.
            ahead = max(self._tat.get(key, now) - now, 0.0) + rate.charge_ms(tokens)
            wait = ahead - rate.burst_ms
            if wait > SLACK_MS:
                return wait
            if len(self._tat) >= self.PRUNE_AT:
                self._tat = {k: v for k, v in self._tat.items() if v > now}
            self._tat[key] = now + ahead
            return 0.0

    def __len__(self) -> int:
        return len(self._tat)
