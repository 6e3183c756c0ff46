"""Taking a game out of Redis: :class:`GameRemoval` (``store.removal``) deletes
a game's keys (once archived, or when a table that never started is expired)
and owns the expiry mark left behind (:func:`keys.expired`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from . import keys
from .clients import Client

EXPIRE_IF_UNCHANGED: Final = """
-- KEYS: the game's stream, then every other key of the game; KEYS[#KEYS]: its
-- expiry mark. ARGV[1]: the id the stream's last entry must still have;
-- ARGV[2]: the mark's TTL in seconds. Deletes the game and leaves the mark
-- only if nothing was appended since the caller looked; returns 1 if so.
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
if #last == 0 or last[1][1] ~= ARGV[1] then return 0 end
for i = 1, #KEYS - 1 do redis.call('DEL', KEYS[i]) end
redis.call('SET', KEYS[#KEYS], '1', 'EX', tonumber(ARGV[2]))
return 1
"""


class GameRemoval:
    """Deletes games' keys (all in the game's slot) and reads expiry marks."""

    def __init__(self, redis: Client) -> None:
        self._redis = redis
        self._expire = redis.register_script(EXPIRE_IF_UNCHANGED)

    def delete(self, game_keys: Sequence[str]) -> None:
        """Delete ``game_keys`` (one game's)."""
        self._redis.delete(*game_keys)

    def expire_if_unchanged(
        self, game_id: str, game_keys: Sequence[str], last_entry: str, mark_s: int
    ) -> bool:
        """Delete ``game_keys`` (the stream first) and mark the game expired for
        ``mark_s`` s, only if its stream still ends with ``last_entry``."""
        doomed = [*game_keys, keys.expired(game_id)]
        return bool(self._expire(keys=doomed, args=[last_entry, mark_s]))

    def was_expired(self, game_id: str) -> bool:
        """Whether ``game_id`` is a table expired (recently): its mark is there."""
        return bool(self._redis.exists(keys.expired(game_id)))
