"""The fairness counts: each game's own notes and the public counts.

A game's observations wait under its own key (:func:`keys.fairness_notes`, a
hash next to its stream, never served) until its hands are public; then they
are added to the public counts in one atomic step (:data:`MERGE`), guarded by
the set of games already counted, so counting a game twice counts it once.
A rebuild fills the :data:`REBUILD` keys and renames them over the public
ones. What is observed, and when a game is counted, is the projection's
(:mod:`service.fairness.projection`); this module sends the commands.

Keys (one hash tag, so the merge is one Lua script, also on a cluster):
``cardroom:{fairness}:counts`` (field ``table|feature|group|context|value``
→ hands), ``cardroom:{fairness}:games`` (ids counted) and
``cardroom:{fairness}:meta`` (``games``, ``deals``, the rebuild ``epoch``).

:class:`FairnessCounts` owns them all (``store.fairness``).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any, Final, cast

from . import keys
from .clients import Client

COUNTS: Final = "cardroom:{fairness}:counts"
GAMES: Final = "cardroom:{fairness}:games"
META: Final = "cardroom:{fairness}:meta"
PUBLIC: Final = (COUNTS, GAMES, META)
"""The public counts, counted games and totals: a merge's keys, in its order."""
REBUILD: Final = tuple(f"{k}:rebuild" for k in PUBLIC)
"""Where a rebuild counts before its swap."""
PENDING_TTL_S: Final = 90 * 86_400
"""A game's uncounted observations expire if it never ends (abandoned without a word)."""

MERGE: Final = """
if redis.call('SADD', KEYS[2], ARGV[1]) == 0 then return 0 end
redis.call('HINCRBY', KEYS[3], 'games', 1)
redis.call('HINCRBY', KEYS[3], 'deals', ARGV[2])
for i = 3, #ARGV, 2 do redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1]) end
return 1
"""


def _decoded(raw: Mapping[bytes, bytes]) -> dict[str, str]:
    return {k.decode(): v.decode() for k, v in raw.items()}


class FairnessCounts:
    """The fairness notes of each game and the public counts (see the module's docstring)."""

    def __init__(self, redis: Client) -> None:
        self._redis = redis

    # -- a game's own notes ------------------------------------------------------
    def last_deal(self, game_id: str) -> str | None:
        """The game's noted ``last`` field (its latest deal's summary, JSON), if any."""
        raw = self._redis.hget(keys.fairness_notes(game_id), "last")
        return None if raw is None else cast(bytes, raw).decode()

    def note(self, game_id: str, fields: Mapping[str, str]) -> None:
        """Add ``fields`` to the game's notes, which expire if it never ends."""
        key = keys.fairness_notes(game_id)
        mapping: dict[Any, Any] = dict(fields)
        pipe = self._redis.pipeline(transaction=False)
        pipe.hset(key, mapping=mapping)
        pipe.expire(key, PENDING_TTL_S)
        pipe.execute()

    def notes(self, game_id: str) -> dict[str, str]:
        """Every field of the game's notes."""
        return _decoded(cast(dict[bytes, bytes], self._redis.hgetall(keys.fairness_notes(game_id))))

    def drop_notes(self, game_id: str) -> None:
        """The game is counted (now or before): its own notes are done with."""
        self._redis.delete(keys.fairness_notes(game_id))

    # -- the counts --------------------------------------------------------------
    def merge(
        self,
        game_id: str,
        counts: Mapping[str, int],
        deals: int,
        into: Sequence[str] = PUBLIC,
    ) -> bool:
        """Add a game's counts to ``into`` (counts, games, totals) unless it is
        counted there already, in one atomic step; whether it was added."""
        args: list[Any] = [game_id, deals]
        for name, n in sorted(counts.items()):
            args += [name, n]
        return bool(self._redis.eval(MERGE, 3, *into, *args))

    def clear(self, where: Sequence[str]) -> None:
        """Delete the counts kept at ``where`` (a rebuild's or a benchmark's)."""
        self._redis.delete(*where)

    def start_rebuild(self) -> tuple[str, ...]:
        """Empty the rebuild's keys; the keys to merge into until :meth:`swap_rebuild`."""
        self.clear(REBUILD)
        return REBUILD

    def swap_rebuild(self) -> None:
        """Put the rebuilt counts in place of the public ones, with a new ``epoch``."""
        pipe = self._redis.pipeline(transaction=False)
        for src, dst in zip(REBUILD, PUBLIC, strict=True):
            pipe.delete(dst)
            pipe.exists(src)
        exists = pipe.execute()[1::2]
        self._redis.hset(REBUILD[2], "epoch", int(time.time() * 1000))
        exists[2] = True
        pipe = self._redis.pipeline(transaction=False)
        for src, dst, there in zip(REBUILD, PUBLIC, exists, strict=True):
            if there:
                pipe.rename(src, dst)
        pipe.execute()

    def read(self) -> tuple[dict[str, int], dict[str, int]]:
        """The public counts and totals (``games``, ``deals``)."""
        pipe = self._redis.pipeline(transaction=False)
        pipe.hgetall(COUNTS)
        pipe.hgetall(META)
        counts_raw, meta_raw = pipe.execute()
        counts = {k.decode(): int(v) for k, v in counts_raw.items()}
        meta = {k.decode(): int(v) for k, v in meta_raw.items() if k != b"epoch"}
        return counts, meta

    def read_meta(self) -> dict[str, int]:
        """The totals alone: ``games``, ``deals`` and the rebuild ``epoch``."""
        raw = cast(dict[bytes, bytes], self._redis.hgetall(META))
        return {k.decode(): int(v) for k, v in raw.items()}
