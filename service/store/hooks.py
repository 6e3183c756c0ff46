"""Webhook subscriptions and deliveries: :class:`HookStore` (``store.hooks``) owns
the game's hook keys (:func:`keys.hooks`, :func:`keys.hook_info`,
:func:`keys.deliveries`, :func:`keys.delivery_log`, :func:`keys.delivery_state`)
and the webhooks' due set and paused set (:data:`keys.HOOKS_DUE`,
:data:`keys.HOOKS_PAUSED`).

A delivery is queued by the append that decides its event
(:class:`service.store.append.Hooks`): the append script writes its record
and, on a standalone Redis, its entry in the due set. Whoever sends it first
*claims* it: the claim checks that the entry's score is still the one the
claimer was handed (the append's time, or the score a sweep set) and pushes
it a lease ahead, so two claimers never both hold it, and one that died with
its claim lets it fall due again a lease later.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Final, cast

from . import clock, keys
from .clients import Client

WAKE_TOKENS: Final = 16
"""The most wake tokens kept: enough to wake every sender, never a growing list."""

SUBSCRIBE: Final = """
-- KEYS[1]: the game's hooks hash; KEYS[2]: its hook info hash.
-- ARGV: hook id, its match line, its info JSON, the most subscriptions a game
-- may have, the most a seat may have, the seat.
-- Returns 1 when added, 0 when the game's budget is spent, -1 the seat's.
local subs = redis.call('HGETALL', KEYS[1])
local live, seat = 0, 0
for i = 2, #subs, 2 do
  local who, state = string.match(subs[i], '^(%d+) %S+ (%a+)$')
  if state ~= 'ended' then
    live = live + 1
    if who == ARGV[6] then seat = seat + 1 end
  end
end
if live >= tonumber(ARGV[4]) then return 0 end
if seat >= tonumber(ARGV[5]) then return -1 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
return 1
"""

CLAIM: Final = (
    clock.LUA
    + """
-- KEYS[1]: the due set. ARGV: member, the score the claimer was handed, lease ms.
-- Claims the delivery (pushes it a lease ahead) if its score is still that one.
local at = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not at or tonumber(at) ~= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], tonumber(clock_ms()) + tonumber(ARGV[3]), ARGV[1])
return 1
"""
)

CLAIM_DUE: Final = (
    clock.LUA
    + """
-- KEYS[1]: the due set. ARGV: how many, lease ms.
-- Claims up to that many due deliveries; returns member, score pairs.
local now = tonumber(clock_ms())
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[1]))
local out = {}
local until_ms = now + tonumber(ARGV[2])
for _, member in ipairs(due) do
  redis.call('ZADD', KEYS[1], until_ms, member)
  out[#out + 1] = member
  out[#out + 1] = tostring(until_ms)
end
return out
"""
)

SET_STATE: Final = """
-- KEYS[1]: the game's hooks hash. ARGV: hook id, new state.
-- Sets a subscription's state unless it is gone or has ended; 1 if it did.
local line = redis.call('HGET', KEYS[1], ARGV[1])
if not line then return 0 end
local head, state = string.match(line, '^(%d+ %S+) (%a+)$')
if state == 'ended' then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], head .. ' ' .. ARGV[2])
return 1
"""


@dataclass(frozen=True, slots=True)
class Subscription:
    hook_id: str
    seat: int
    events: tuple[str, ...]
    state: str
    """``on``, ``paused`` or ``ended``."""
    info: dict[str, Any]


@dataclass(frozen=True, slots=True)
class DeliveryRecord:
    """What the append script wrote of one delivery."""

    delivery_id: str
    hook_id: str
    event: str
    seat: int
    version: int
    at_ms: int
    deadline_ms: int | None


def match_line(seat: int, events: tuple[str, ...], state: str) -> str:
    return f"{seat} {','.join(events)} {state}"


def _text(raw: Any) -> str:
    return raw.decode() if isinstance(raw, bytes) else str(raw)


class HookStore:
    """The game's webhook keys and the webhooks' due and paused sets."""

    def __init__(self, redis: Client) -> None:
        self._redis = redis
        self._subscribe = redis.register_script(SUBSCRIBE)
        self._claim = redis.register_script(CLAIM)
        self._claim_due = redis.register_script(CLAIM_DUE)
        self._set_state = redis.register_script(SET_STATE)

    # -- subscriptions -------------------------------------------------------
    def subscribe(self, gid: str, sub: Subscription, per_game: int, per_seat: int) -> int:
        """Add ``sub`` within the budgets: 1 added, 0 the game's spent, -1 the seat's."""
        reply = self._subscribe(
            keys=[keys.hooks(gid), keys.hook_info(gid)],
            args=[
                sub.hook_id,
                match_line(sub.seat, sub.events, sub.state),
                json.dumps(sub.info),
                per_game,
                per_seat,
                sub.seat,
            ],
        )
        return int(reply)

    def subscriptions(self, game_id: str) -> list[Subscription]:
        pipe = self._redis.pipeline(transaction=False)
        pipe.hgetall(keys.hooks(game_id))
        pipe.hgetall(keys.hook_info(game_id))
        lines, infos = cast("tuple[dict[bytes, bytes], dict[bytes, bytes]]", pipe.execute())
        out: list[Subscription] = []
        for raw_id, raw_line in lines.items():
            info = infos.get(raw_id)
            if info is None:
                continue
            seat, events, state = _text(raw_line).split(" ")
            out.append(
                Subscription(
                    _text(raw_id), int(seat), tuple(events.split(",")), state, json.loads(info)
                )
            )
        return sorted(out, key=lambda s: (s.info.get("created_at", 0), s.hook_id))

    def subscription(self, game_id: str, hook_id: str) -> Subscription | None:
        return next((s for s in self.subscriptions(game_id) if s.hook_id == hook_id), None)

    def set_info(self, game_id: str, hook_id: str, info: dict[str, Any]) -> None:
        self._redis.hset(keys.hook_info(game_id), hook_id, json.dumps(info))

    def set_state(self, game_id: str, hook_id: str, state: str) -> bool:
        return bool(self._set_state(keys=[keys.hooks(game_id)], args=[hook_id, state]))

    def remove(self, game_id: str, hook_id: str) -> None:
        pipe = self._redis.pipeline(transaction=False)
        pipe.hdel(keys.hooks(game_id), hook_id)
        pipe.hdel(keys.hook_info(game_id), hook_id)
        pipe.zrem(keys.HOOKS_PAUSED, f"{game_id} {hook_id}")
        pipe.execute()

    # -- pausing -----------------------------------------------------------------
    def mark_paused(self, game_id: str, hook_id: str, at_ms: int) -> None:
        self._redis.zadd(keys.HOOKS_PAUSED, {f"{game_id} {hook_id}": at_ms})

    def unmark_paused(self, game_id: str, hook_id: str) -> None:
        self._redis.zrem(keys.HOOKS_PAUSED, f"{game_id} {hook_id}")

    def paused_count(self) -> int:
        return int(self._redis.zcard(keys.HOOKS_PAUSED))

    # -- deliveries ----------------------------------------------------------------
    def record(self, game_id: str, delivery_id: str) -> DeliveryRecord | None:
        raw = self._redis.hget(keys.deliveries(game_id), delivery_id)
        return None if raw is None else _parse_record(delivery_id, _text(raw))

    def records(self, game_id: str, ids: list[str]) -> list[DeliveryRecord]:
        if not ids:
            return []
        raws = self._redis.hmget(keys.deliveries(game_id), ids)
        return [_parse_record(i, _text(r)) for i, r in zip(ids, raws, strict=True) if r]

    def log(self, game_id: str, limit: int) -> list[str]:
        """The game's delivery ids, newest first (at most ``limit``)."""
        raw = self._redis.zrevrange(keys.delivery_log(game_id), 0, max(0, limit - 1))
        return [_text(r) for r in cast("list[bytes]", raw)]

    def state(self, game_id: str, delivery_id: str) -> dict[str, Any] | None:
        raw = self._redis.hget(keys.delivery_state(game_id), delivery_id)
        return None if raw is None else cast("dict[str, Any]", json.loads(raw))

    def states(self, game_id: str, ids: list[str]) -> dict[str, dict[str, Any]]:
        if not ids:
            return {}
        raws = self._redis.hmget(keys.delivery_state(game_id), ids)
        return {i: json.loads(r) for i, r in zip(ids, raws, strict=True) if r}

    def set_delivery_state(self, game_id: str, delivery_id: str, state: dict[str, Any]) -> None:
        self._redis.hset(keys.delivery_state(game_id), delivery_id, json.dumps(state))

    # -- the due set -----------------------------------------------------------------
    def schedule(self, game_id: str, delivery_id: str, due_ms: int) -> None:
        self._redis.zadd(keys.HOOKS_DUE, {f"{game_id} {delivery_id}": due_ms})

    def unschedule(self, game_id: str, delivery_id: str) -> None:
        self._redis.zrem(keys.HOOKS_DUE, f"{game_id} {delivery_id}")

    def claim(self, game_id: str, delivery_id: str, token: int, lease_ms: int) -> bool:
        """Claim a delivery whose due score is still ``token``, for ``lease_ms``."""
        member = f"{game_id} {delivery_id}"
        return bool(self._claim(keys=[keys.HOOKS_DUE], args=[member, token, lease_ms]))

    def claim_due(self, limit: int, lease_ms: int) -> list[tuple[str, str, int]]:
        """Claim up to ``limit`` due deliveries: ``(game_id, delivery_id, token)``."""
        reply = cast("list[bytes]", self._claim_due(keys=[keys.HOOKS_DUE], args=[limit, lease_ms]))
        out: list[tuple[str, str, int]] = []
        for i in range(0, len(reply), 2):
            game_id, _, delivery_id = _text(reply[i]).partition(" ")
            out.append((game_id, delivery_id, int(_text(reply[i + 1]))))
        return out

    def next_due_ms(self) -> int | None:
        """The score of the first entry of the due set, if any."""
        first = cast(
            "list[tuple[bytes, float]]", self._redis.zrange(keys.HOOKS_DUE, 0, 0, withscores=True)
        )
        return int(first[0][1]) if first else None

    def wake(self) -> None:
        """Wake a sender blocked in :meth:`wait_for_work` (a few tokens at most are kept)."""
        if int(self._redis.llen(keys.HOOKS_WAKE)) < WAKE_TOKENS:
            self._redis.lpush(keys.HOOKS_WAKE, b"1")

    def wait_for_work(self, timeout_s: float) -> bool:
        """Block until woken or ``timeout_s`` passed (``BLPOP``); whether woken."""
        return self._redis.blpop([keys.HOOKS_WAKE], timeout=max(0.01, timeout_s)) is not None

    def is_due(self, game_id: str, delivery_id: str) -> bool:
        return self._redis.zscore(keys.HOOKS_DUE, f"{game_id} {delivery_id}") is not None


def _parse_record(delivery_id: str, line: str) -> DeliveryRecord:
    hook, event, seat, version, at_ms, deadline = line.split(" ")
    return DeliveryRecord(
        delivery_id,
        hook,
        event,
        int(seat),
        int(version),
        int(float(at_ms)),
        None if deadline == "-" else int(float(deadline)),
    )
