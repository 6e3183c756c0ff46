"""Table talk: :class:`TableTalk` (``store.talk``) owns the game's message stream
(:func:`keys.talk`) and each seat's gap key (:func:`keys.talk_gap`). A message is a
preset code said by a seat (never free text); a seat says at most one per gap, which
the gap key (``SET NX PX``) enforces for every API process at once. The stream keeps the
latest :data:`KEPT` messages for :data:`TALK_TTL_S`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, cast

from . import keys
from .clients import Client

KEPT: Final = 50
TALK_TTL_S: Final = 24 * 3600
FIRST: Final = "0-0"
"""The id before every message: a reader that has seen none reads from here."""

Rows = list[tuple[bytes, dict[bytes, bytes]]]


@dataclass(frozen=True)
class Said:
    """One message: its stream id, the seat, the code and when (ms, Redis's time)."""

    id: str
    seat: int
    code: str
    at: int

    def json(self) -> dict[str, object]:
        return {"id": self.id, "seat": self.seat, "code": self.code, "at": self.at}


def said(rows: Rows) -> list[Said]:
    """The messages of stream entries (as ``XRANGE`` or ``XREAD`` give them)."""
    out = []
    for raw_id, fields in rows:
        entry_id = raw_id.decode() if isinstance(raw_id, bytes) else str(raw_id)
        seat = int(fields[b"s"])
        code = fields[b"c"].decode()
        out.append(Said(entry_id, seat, code, int(entry_id.split("-", 1)[0])))
    return out


class TableTalk:
    """The message streams of every game."""

    def __init__(self, redis: Client) -> None:
        self._redis = redis

    def wait_ms(self, game_id: str, seat: int, gap_ms: int) -> int:
        """0 when ``seat`` may say something now (and the gap starts), else how long
        it must still wait (ms)."""
        key = keys.talk_gap(game_id, seat)
        if self._redis.set(key, "1", nx=True, px=gap_ms):
            return 0
        left = int(self._redis.pttl(key))
        return max(1, left)

    def say(self, game_id: str, seat: int, code: str) -> Said:
        """Add the message; it as stored."""
        key = keys.talk(game_id)
        pipe = self._redis.pipeline(transaction=False)  # one slot; a cluster pipeline too
        pipe.xadd(key, {"s": seat, "c": code}, maxlen=KEPT, approximate=False)
        pipe.expire(key, TALK_TTL_S)
        raw_id = pipe.execute()[0]
        entry_id = raw_id.decode() if isinstance(raw_id, bytes) else str(raw_id)
        return Said(entry_id, seat, code, int(entry_id.split("-", 1)[0]))

    def recent(self, game_id: str, after: str | None = None) -> list[Said]:
        """The messages kept, oldest first; only those after the id ``after`` when given."""
        start = "-" if after is None else f"({after}"
        return said(cast(Rows, self._redis.xrange(keys.talk(game_id), start, "+")))

    def last_id(self, game_id: str) -> str:
        """The id of the latest message (:data:`FIRST` when there is none)."""
        rows = cast(Rows, self._redis.xrevrange(keys.talk(game_id), "+", "-", count=1))
        if not rows:
            return FIRST
        raw_id = rows[0][0]
        return raw_id.decode() if isinstance(raw_id, bytes) else str(raw_id)
