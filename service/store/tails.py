"""Following many games' streams at once: the Redis side of the stream hub
(:mod:`service.hub`).

:class:`StreamTails` (``store.tails``) hands each hub reader a
:class:`TailReader`, a client of the same server with a connection of its own
(so a blocked read never takes one the requests share), whose :meth:`read`
is one ``XREAD BLOCK`` over many keys, each after its own id. A reader's
wake-up key (:func:`wake_key`) is appended to (``XADD … MAXLEN 1``, expiring)
to end its blocked read when its key set grows. A failed read raises
:class:`TailLost`. On a cluster one ``XREAD`` may not span slots, so each
reader there reads one key and has no wake-up key.
"""

from __future__ import annotations

from typing import Any, Final, cast

import redis
from redis.cluster import RedisCluster
from redis.exceptions import RedisError

from .clients import Client, block_slice_ms
from .errors import StoreError
from .keys import PREFIX

WAKE_TTL_S: Final = 60


class TailLost(StoreError):
    """A blocking read over the followed streams failed (Redis went away)."""


def wake_key(hub_id: str, reader: int) -> str:
    """The wake-up stream of one hub reader (``hub_id`` 12 hex digits)."""
    return f"{PREFIX}:{{hub:{hub_id}:{reader}}}:wake"


def bulk(text: str) -> bytes:
    """``text`` as one RESP bulk string (a command's argument)."""
    data = text.encode()
    return b"$%d\r\n%s\r\n" % (len(data), data)


class TailReader:
    """One hub reader's client and its blocking reads."""

    def __init__(self, client: Client) -> None:
        self._redis = client

    def read(self, streams: dict[str, str], block_ms: int) -> Any:
        """``XREAD BLOCK block_ms`` over ``streams`` (key → id to read after): the
        reply (``[(key, [(id, fields)…])…]``), or ``None`` when nothing came."""
        try:
            return self._redis.xread(cast(Any, streams), block=block_ms)
        except RedisError as lost:
            raise TailLost(str(lost)) from lost


class PackedRead(TailReader):
    """A reader's ``XREAD`` sent packed from kept pieces on the one connection of
    its own pool, its reply (a RESP3 map or a RESP2 list) shaped as
    :meth:`TailReader.read`'s."""

    def __init__(self, client: redis.Redis) -> None:
        super().__init__(client)
        self._pool = client.connection_pool
        self._conn: Any = None
        """The pool's connection this reader holds (redis-py's, untyped)."""
        self._keys: dict[str, bytes] = {}
        self._ids: dict[str, tuple[str, bytes]] = {}

    def _pieces(self, streams: dict[str, str]) -> list[bytes]:
        keys, ids = self._keys, self._ids
        if len(keys) > 2 * len(streams) + 64:  # keys let go of since: forget their pieces
            keys.clear()
            ids.clear()
        out = []
        for key in streams:
            piece = keys.get(key)
            if piece is None:
                piece = keys[key] = bulk(key)
            out.append(piece)
        for key, cursor in streams.items():
            kept = ids.get(key)
            if kept is None or kept[0] != cursor:
                kept = ids[key] = (cursor, bulk(cursor))
            out.append(kept[1])
        return out

    def read(self, streams: dict[str, str], block_ms: int) -> Any:
        head = b"*%d\r\n$5\r\nXREAD\r\n$5\r\nBLOCK\r\n%s$7\r\nSTREAMS\r\n" % (
            4 + 2 * len(streams),
            bulk(str(block_ms)),
        )
        command = head + b"".join(self._pieces(streams))
        try:
            conn = self._conn
            if conn is None:
                conn = self._conn = self._pool.get_connection()
            reply = conn.retry.call_with_retry(  # as redis-py's own commands retry
                lambda: self._send(conn, command), lambda _error: conn.disconnect()
            )
        except RedisError as lost:
            self._drop()
            raise TailLost(str(lost)) from lost
        except BaseException:
            self._drop()  # cut mid-command (a greenlet killed): the connection is unusable
            raise
        if not reply:
            return None
        return [
            (
                key,
                [
                    (entry, dict(zip(fields[::2], fields[1::2], strict=True)) if fields else {})
                    for entry, fields in rows
                ],
            )
            for key, rows in (reply.items() if isinstance(reply, dict) else reply)
        ]

    @staticmethod
    def _send(conn: Any, command: bytes) -> Any:
        conn.send_packed_command([command])
        return conn.read_response()

    def _drop(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.disconnect()
            self._pool.release(conn)


class StreamTails:
    """The hub's readers, their wake-ups, and what the client allows."""

    def __init__(self, client: Client) -> None:
        self._redis = client
        self.cluster = isinstance(client, RedisCluster)
        """Whether one read may name keys of one slot only (a reader per key)."""

    def block_ms(self, longest_ms: int) -> int:
        """The longest blocking read the client's socket timeout allows."""
        return block_slice_ms(self._redis, longest_ms)

    def reader(self) -> TailReader:
        """A reader on a client with a pool of its own (a cluster client, or an
        in-process fake, is shared as it is)."""
        pool = getattr(self._redis, "connection_pool", None)
        if type(self._redis) is not redis.Redis or not isinstance(pool, redis.ConnectionPool):
            return TailReader(self._redis)
        own = redis.ConnectionPool(  # type: ignore[no-untyped-call]
            connection_class=pool.connection_class, max_connections=2, **pool.connection_kwargs
        )
        return PackedRead(redis.Redis(connection_pool=own))

    def wake(self, key: str) -> bool:
        """End the blocked read that names ``key``; false if Redis did not take it."""
        try:
            pipe = self._redis.pipeline(transaction=False)
            pipe.xadd(key, {"w": "1"}, maxlen=1, approximate=False)
            pipe.expire(key, WAKE_TTL_S)
            pipe.execute()
        except RedisError:
            return False
        return True
