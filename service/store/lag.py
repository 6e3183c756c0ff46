"""Projection lag kept as it changes, so ``/metrics`` reads it in O(1).

Every game whose events are not all folded into its snapshot has an entry in
one sorted set (:data:`keys.LAG`, game id → events behind), and their sum is
kept beside it (:data:`keys.LAG_TOTAL`); one Lua script per change keeps the
two consistent. Appends add the events they wrote (on a standalone Redis the
append script itself does, in the same round trip, see
:data:`service.store.lua.APPEND`, which adds nothing when the append projects
itself and clears the game's entry instead); a projection sets the game's lag
to what is left after it (usually 0), which also corrects any drift (an append
counted during a projection, a process that died between its append and its
count). A scrape reads the sum and the largest entry: two commands whatever
the number of games.

:class:`LagCounts` owns both keys (``store.lag``).
"""

from __future__ import annotations

from typing import Any, Final

from . import keys
from .clients import Client, Pipe

LAG: Final = keys.LAG
TOTAL: Final = keys.LAG_TOTAL

CHANGE: Final = """
-- KEYS: the lag set, the total. ARGV: game id, amount, '1' to set it (else add).
local old = tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1]) or '0')
local new = tonumber(ARGV[2])
if ARGV[3] ~= '1' then new = old + new end
if new < 0 then new = 0 end
if new == 0 then redis.call('ZREM', KEYS[1], ARGV[1])
else redis.call('ZADD', KEYS[1], new, ARGV[1]) end
local total = redis.call('INCRBY', KEYS[2], new - old)
if total < 0 then redis.call('SET', KEYS[2], 0) end
return new
"""


class LagCounts:
    """The projection-lag set and its total (see the module's docstring)."""

    def __init__(self, redis: Client) -> None:
        self._redis = redis
        self._change = redis.register_script(CHANGE)

    def _run(self, args: list[Any], pipe: Any) -> None:
        if pipe is not None:  # the script's text (Redis caches it): no SCRIPT EXISTS first
            pipe.execute_command("EVAL", CHANGE, 2, LAG, TOTAL, *args)
        else:
            self._change(keys=[LAG, TOTAL], args=args)

    def appended(self, game_id: str, events: int, pipe: Pipe | None = None) -> None:
        """``events`` new events of ``game_id`` are waiting for their projection
        (queued on ``pipe`` when given)."""
        self._run([game_id, events, "0"], pipe)

    def projected(self, game_id: str, behind: int, pipe: Pipe | None = None) -> None:
        """After a projection (or when a game leaves Redis): ``behind`` events left
        (queued on ``pipe`` when given)."""
        self._run([game_id, behind, "1"], pipe)

    def read(self) -> tuple[int, int]:
        """(events behind summed over games, the largest of one game)."""
        pipe = self._redis.pipeline(transaction=False)
        pipe.get(TOTAL)
        pipe.zrevrange(LAG, 0, 0, withscores=True)
        total, top = pipe.execute()
        return int(total or 0), int(top[0][1]) if top else 0
