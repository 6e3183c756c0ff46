"""The games index: which games exist, of which game, in which status, newest first.

The index is the only data that spans games, so it is sharded: a game lives
in shard ``crc32(game_id) % shards`` and each shard's keys share their own
hash tag. A status change is one Lua script inside the game's shard. A page
merges the shards' newest entries; the cursor is the last entry's creation
time and id, so paging is stable while games are being added.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Final, cast

from . import keys, lua
from .clients import Client, Pipe, run_script
from .errors import BadCursor, GameNotFound

MAX_PAGE: Final = 500


@dataclass(frozen=True, slots=True)
class GameSummary:
    game_id: str
    game: str
    status: str
    created_at: int
    """Milliseconds since the epoch."""


class GamesIndex:
    def __init__(self, redis: Client, shards: int = keys.INDEX_SHARDS) -> None:
        self._redis = redis
        self._shards = shards
        self._index_game = redis.register_script(lua.INDEX_GAME)
        self._set_status = redis.register_script(lua.SET_STATUS)

    def index_game(
        self, game_id: str, game: str, status: str, created_at: int, pipe: Pipe | None = None
    ) -> None:
        """Add a game (``created_at`` in ms since the epoch); a game already
        indexed keeps its entry (use :meth:`set_status` to move it)."""
        shard = keys.index_shard(game_id, self._shards)
        sets = [
            keys.index_games(shard),
            keys.index_games(shard, game=game),
            keys.index_games(shard, status=status),
            keys.index_games(shard, game=game, status=status),
        ]
        args: list[str | int] = [game_id, f"{game} {status} {int(created_at)}", int(created_at)]
        run_script(self._index_game, [keys.index_meta(shard), *sets], args, pipe)

    def set_status(self, game_id: str, status: str) -> None:
        """Move an indexed game to ``status``; :class:`GameNotFound` if it is not indexed."""
        shard = keys.index_shard(game_id, self._shards)
        meta_key = keys.index_meta(shard)
        keys.index_games(shard, status=status)  # refuse a bad status before anything else
        while True:
            raw = cast("bytes | None", self._redis.hget(meta_key, game_id))
            if raw is None:
                raise GameNotFound(game_id)
            meta = raw.decode()
            game, old, created = meta.split(" ")
            if old == status:
                return
            moved = self._set_status(
                keys=[
                    meta_key,
                    keys.index_games(shard, status=old),
                    keys.index_games(shard, game=game, status=old),
                    keys.index_games(shard, status=status),
                    keys.index_games(shard, game=game, status=status),
                ],
                args=[game_id, meta, f"{game} {status} {created}", created],
            )
            if moved:
                return

    def drop(self, game_id: str) -> None:
        """Remove ``game_id`` from the index (its shard's meta and sets)."""
        shard = keys.index_shard(game_id, self._shards)
        meta_key = keys.index_meta(shard)
        raw = cast("bytes | None", self._redis.hget(meta_key, game_id))
        if raw is None:
            return
        game, status, _ = raw.decode().split(" ")
        pipe = self._redis.pipeline(transaction=False)  # one shard's slot
        pipe.hdel(meta_key, game_id)
        for key in (
            keys.index_games(shard),
            keys.index_games(shard, game=game),
            keys.index_games(shard, status=status),
            keys.index_games(shard, game=game, status=status),
        ):
            pipe.zrem(key, game_id)
        pipe.execute()

    def scan_page(
        self, shard: int, status: str, score: float, count: int
    ) -> list[tuple[bytes, float]]:
        """Up to ``count`` games of ``status`` in ``shard`` created at or after
        ``score`` (ms), oldest first, with their scores (the reconciler's walk)."""
        key = keys.index_games(shard, status=status)
        page = self._redis.zrangebyscore(key, score, "+inf", start=0, num=count, withscores=True)
        return cast(list[tuple[bytes, float]], page)

    def get(self, game_id: str) -> GameSummary | None:
        key = keys.index_meta(keys.index_shard(game_id, self._shards))
        raw = cast("bytes | None", self._redis.hget(key, game_id))
        return None if raw is None else _summary(game_id, raw)

    def count(self, game: str | None = None, status: str | None = None) -> int:
        """How many games are indexed (of ``game``, in ``status``): one ``ZCARD``
        per shard, in one non-transactional pipeline."""
        pipe = self._redis.pipeline(transaction=False)
        for shard in range(self._shards):
            pipe.zcard(keys.index_games(shard, game=game, status=status))
        return sum(int(n) for n in pipe.execute())

    def list_games(
        self,
        game: str | None = None,
        status: str | None = None,
        limit: int = 20,
        cursor: str | None = None,
    ) -> tuple[list[GameSummary], str | None]:
        """One page of games, newest first, and the cursor of the next page
        (``None`` on the last page).

        Each shard is read with its own single-key ``ZRANGE``; they go out in
        one non-transactional pipeline, which a cluster client splits by node,
        so a page needs no cross-slot command and no ``KEYS``/``SCAN``."""
        if not 1 <= limit <= MAX_PAGE:
            raise ValueError(f"limit {limit} is out of range 1..{MAX_PAGE}")
        after = _parse_cursor(cursor)
        top: Any = "+inf" if after is None else after[0]
        set_keys = [
            keys.index_games(shard, game=game, status=status) for shard in range(self._shards)
        ]
        pipe = self._redis.pipeline(transaction=False)
        for key in set_keys:
            self._range(pipe, key, top, 0, limit + 1)
        first_rows = pipe.execute()
        shards = [
            self._entries(key, rows, top, after, limit + 1)
            for key, rows in zip(set_keys, first_rows, strict=True)
        ]
        page: list[tuple[int, str]] = []
        for entry in heapq.merge(*shards, reverse=True):
            page.append(entry)
            if len(page) > limit:
                break
        more = len(page) > limit
        page = page[:limit]
        items = self._summaries([member for _, member in page])
        next_cursor = f"{page[-1][0]}:{page[-1][1]}" if more else None
        return items, next_cursor

    @staticmethod
    def _range(client: Client | Pipe, key: str, top: Any, offset: int, batch: int) -> Any:
        return client.zrange(
            key, top, "-inf", desc=True, byscore=True, offset=offset, num=batch, withscores=True
        )

    def _entries(
        self,
        key: str,
        rows: list[tuple[bytes, float]],
        top: Any,
        after: tuple[int, str] | None,
        batch: int,
    ) -> Iterator[tuple[int, str]]:
        """One shard's entries strictly after ``after``, in (time, id) descending
        order: the rows already fetched, then further batches only if needed."""
        offset = 0
        while True:
            for raw_member, raw_score in rows:
                entry = (int(raw_score), raw_member.decode())
                if after is None or entry < after:
                    yield entry
            if len(rows) < batch:
                return
            offset += len(rows)
            rows = self._range(self._redis, key, top, offset, batch)

    def _summaries(self, game_ids: list[str]) -> list[GameSummary]:
        pipe = self._redis.pipeline(transaction=False)
        for game_id in game_ids:
            pipe.hget(keys.index_meta(keys.index_shard(game_id, self._shards)), game_id)
        return [
            _summary(gid, raw) for gid, raw in zip(game_ids, pipe.execute(), strict=True) if raw
        ]


def _summary(game_id: str, raw: bytes) -> GameSummary:
    game, status, created = raw.decode().split(" ")
    return GameSummary(game_id, game, status, int(created))


def _parse_cursor(cursor: str | None) -> tuple[int, str] | None:
    if cursor is None:
        return None
    score, sep, member = cursor.partition(":")
    if (
        not sep
        or not (score.isascii() and score.isdigit())
        or not keys.GAME_ID_RE.fullmatch(member)
    ):
        raise BadCursor(f"bad cursor {cursor!r}")
    return int(score), member
