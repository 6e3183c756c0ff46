"""Projection lag kept as it changes, so ``/metrics`` reads it in O(1).

Every game whose events are not all folded into its snapshot has an entry in
one sorted set (``cardroom:{metrics}:lag``, game id → events behind), and their
sum is kept beside it (``cardroom:{metrics}:lag_total``); one Lua script per
change keeps the two consistent. Appends add the events they wrote (on a
standalone Redis the append script itself does, in the same round trip, see
:data:`service.store.lua.APPEND`, which adds nothing when the append projects
itself and clears the game's entry instead); a projection sets the game's lag
to what is left after it (usually 0), which also corrects any drift (an append counted
during a projection, a process that died between its append and its count). A
scrape reads the sum and the largest entry: two commands whatever the number of
games.
"""

from __future__ import annotations

from typing import Any, Final

from .store import keys

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


def _change(redis: Any, args: list[Any], pipe: Any = None) -> None:
    if pipe is not None:  # the script's text (Redis caches it): no SCRIPT EXISTS first
        pipe.execute_command("EVAL", CHANGE, 2, LAG, TOTAL, *args)
    else:
        redis.register_script(CHANGE)(keys=[LAG, TOTAL], args=args)


def appended(redis: Any, game_id: str, events: int, pipe: Any = None) -> None:
    """``events`` new events of ``game_id`` are waiting for their projection
    (queued on ``pipe`` when given)."""
    _change(redis, [game_id, events, "0"], pipe)


def projected(redis: Any, game_id: str, behind: int, pipe: Any = None) -> None:
    """After a projection (or when a game leaves Redis): ``behind`` events left
    (queued on ``pipe`` when given)."""
    _change(redis, [game_id, behind, "1"], pipe)


def read(redis: Any) -> tuple[int, int]:
    """(events behind summed over games, the largest of one game)."""
    pipe = redis.pipeline(transaction=False)
    pipe.get(TOTAL)
    pipe.zrevrange(LAG, 0, 0, withscores=True)
    total, top = pipe.execute()
    return int(total or 0), int(top[0][1]) if top else 0
