"""When a failed delivery is tried again: exponential backoff with jitter.

The n-th retry (n = 1, 2, …) waits ``base_s * 2**(n-1)``, capped at ``max_s``,
stretched by a random 0–50 %: retries of many deliveries that failed together
spread out, and each wait is longer than the one before (until the cap).
"""

from __future__ import annotations

import random


def delay_ms(retry: int, base_s: float, max_s: float, rng: random.Random | None = None) -> int:
    """The wait before retry number ``retry`` (1 for the first retry), in ms."""
    step = min(max_s, base_s * 2 ** max(0, retry - 1))
    jitter = (rng or random).uniform(1.0, 1.5)
    return max(1, int(step * jitter * 1000))
