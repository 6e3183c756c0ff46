"""The event store's Lua scripts: each runs atomically inside Redis.

Every script touches only keys of one hash-tagged slot (one game, or one
index shard), all passed in ``KEYS``, so the scripts run on Redis Cluster.
The one exception is asked for only on a standalone Redis: there the append
also counts its events as projection lag (:mod:`service.store.lag`), may project
itself (writing the snapshot and setting the game's entry in the timers
index, :class:`service.store.Projection`) and, when the queue shares that
Redis, puts a game newly in need of a follow-up on the drains' list
(:class:`service.store.drains.Drains`), which saves every append two round trips
and, when it projects itself, a follow-up.
"""

from __future__ import annotations

from typing import Final

from . import clock
from .readmodel import lua_fields

APPEND: Final = lua_fields(
    clock.LUA
    + """
-- KEYS[1]: the game's stream; KEYS[2]: its follow-up marker; then, in this
-- order and each only when asked for: the idempotency record; the game's
-- snapshot, its meta hash and its timers-index entry's sorted set (to project
-- the append itself); the projection-lag set and total (service.store.lag); the
-- drains' list and its slots (service.store.drains.Drains); last, when
-- ARGV[19] is not '', the game's hooks, deliveries and delivery log, and
-- with ARGV[20] '1' the webhooks' due set (service.store.hooks).
-- ARGV, by name (service.store.append.ARGS holds the same names in this order):
-- ARGV[1] expected_version: the version the events were decided on
-- ARGV[2] record_ttl_ms: the idempotency record's TTL
-- ARGV[3] keep_response: '1' when ARGV[4] holds a response to keep with the record
-- ARGV[4] response: that response
-- ARGV[5] marker_ttl_ms: the follow-up marker's TTL
-- ARGV[6] game_id: the game's id
-- ARGV[7] count_lag: '1' to count the events appended as the game's projection lag
-- ARGV[8] drain_slots: how many drain slots follow the drains' list in KEYS
--   (0: the list is not given, the caller sees to the follow-up)
-- ARGV[9] slot_lease_ms: the slots' lease
-- ARGV[10] slot_token: the token of a slot taken
-- ARGV[11] last_entry: the id the stream's last entry must have ('' = not
--   checked: the caller's state was read from the stream just now)
-- ARGV[12..18], to project the append itself ('' in ARGV[12]: not asked):
-- ARGV[12] state: the state after the events, encoded
-- ARGV[13] schema_id: its state schema id
-- ARGV[14] game: the game's name
-- ARGV[15] begun: the seats whose turn began in these events, as
--   'seat:version' separated by spaces
-- ARGV[16] idle: the seats with no turn now
-- ARGV[17] to_act: the seats to act
-- ARGV[18] limit_ms: the turn limit in ms ('': none)
-- ARGV[19] hook_notices: the webhook events these events decide, as
--   'event:seat:limit_ms' separated by spaces (seat '*': every seat's
--   subscriptions; limit_ms '': no deadline); '': none, and no hook keys given
-- ARGV[20] hook_due: '1' when the webhooks' due set follows the game's hook
--   keys (a standalone Redis), '0' when the caller schedules the deliveries
-- then four per event, from ARGV[21]: type, schema_version, data, at_ms
-- ('' = now). An event in the second stored form (schemas.entries) has ''
-- as its schema_version and is one field 'e' (its data; the type is not
-- stored); else the entry has the first form's 't', 'v' and 'd'.
-- Returns {2, record} for a repeated key, {0, version} on a stale
-- expected version (or a last entry other than ARGV[11]), else
-- {1, first_version, last_version, last_at_ms, fresh, slot, projected, queued}:
-- queued lists the ids of the webhook deliveries this append queued.
-- fresh is 1 when the marker was newly set (no follow-up was pending: one
-- must be started), 0 when a pending follow-up will see this append (or
-- none is needed).
-- slot, when fresh and the drains' list was given: the game is on the list,
-- and slot is the index of the free slot taken (a drain job must be enqueued
-- for it) or -1 (the drains running serve the list); otherwise -2.
-- projected is 1 when the append was projected here: asked to, with no
-- follow-up pending and the snapshot at the expected version (so the state
-- given is that snapshot's with these events folded in), the snapshot is the
-- given state, the turn marks and the game's timer are set as a follow-up
-- would set them, the game is not behind, and its marker is left alone.
local slots = tonumber(ARGV[8])
local rest = #KEYS
local hooks = nil
if ARGV[19] ~= '' then
  hooks = rest - 2
  if ARGV[20] == '1' then hooks = hooks - 1 end
  rest = hooks - 1
end
local drains = nil
if slots > 0 then
  drains = rest - slots
  rest = drains - 1
end
local lag = nil
if ARGV[7] == '1' then
  lag = rest - 1
  rest = rest - 2
end
local snap = nil
if ARGV[12] ~= '' then
  snap = rest - 2
  rest = rest - 3
end
local idem = nil
if rest >= 3 then idem = KEYS[3] end
if idem then
  local record = redis.call('GET', idem)
  if record then return {2, record} end
end
local current = redis.call('XLEN', KEYS[1])
if current ~= tonumber(ARGV[1]) then return {0, current} end
if ARGV[11] ~= '' then
  local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
  if #last == 0 or last[1][1] ~= ARGV[11] then return {0, current} end
end
if snap and redis.call('EXISTS', KEYS[2]) == 0 then
  local kept = redis.call('HMGET', KEYS[snap], $V, $H)
  if tonumber(kept[1]) ~= current or kept[2] ~= ARGV[13] then snap = nil end
else
  snap = nil
end
local now = nil
local last_at = nil
local version = current
for i = 21, #ARGV, 4 do
  local at = ARGV[i + 3]
  if at == '' then
    if not now then now = clock_ms() end
    at = now
  end
  version = version + 1
  if ARGV[i + 1] == '' then
    redis.call('XADD', KEYS[1], version .. '-' .. at, 'e', ARGV[i + 2])
  else
    redis.call('XADD', KEYS[1], version .. '-' .. at,
      't', ARGV[i], 'v', ARGV[i + 1], 'd', ARGV[i + 2])
  end
  last_at = at
end
if idem then
  local record = (current + 1) .. ':' .. version
  if ARGV[3] == '1' then record = record .. ':' .. ARGV[4] end
  redis.call('SET', idem, record, 'PX', ARGV[2])
end
local queued = {}
if hooks then
  local subs = redis.call('HGETALL', KEYS[hooks])
  local ends = string.find(' ' .. ARGV[19], ' game_ended:', 1, true) ~= nil
  for s = 1, #subs, 2 do
    local hook = subs[s]
    local seat, wanted, state = string.match(subs[s + 1], '^(%d+) (%S+) (%a+)$')
    if state == 'on' then
      for event, who, limit in string.gmatch(ARGV[19], '([%a_]+):([%d*]+):(%d*)') do
        if (who == '*' or who == seat)
            and string.find(',' .. wanted .. ',', ',' .. event .. ',', 1, true) then
          local id = hook .. '.' .. version .. '.' .. event
          local deadline = '-'
          if limit ~= '' then deadline = turn_deadline(last_at, limit) end
          redis.call('HSET', KEYS[hooks + 1], id, hook .. ' ' .. event .. ' ' .. seat .. ' '
            .. version .. ' ' .. last_at .. ' ' .. deadline)
          redis.call('ZADD', KEYS[hooks + 2], last_at, id)
          if ARGV[20] == '1' then
            redis.call('ZADD', KEYS[hooks + 3], last_at, ARGV[6] .. ' ' .. id)
          end
          queued[#queued + 1] = id
        end
      end
    end
    if ends and state and state ~= 'ended' then
      redis.call('HSET', KEYS[hooks], hook, seat .. ' ' .. wanted .. ' ended')
    end
  end
end
if snap then
  local meta = KEYS[snap + 1]
  redis.call('HSET', KEYS[snap], $V, version, $G, ARGV[14], $S, ARGV[12], $H, ARGV[13])
  for seat in string.gmatch(ARGV[16], '%d+') do redis.call('HDEL', meta, $TURN .. seat) end
  for seat, since in string.gmatch(ARGV[15], '(%d+):(%d+)') do
    redis.call('HSET', meta, $TURN .. seat, since .. ':' .. last_at)
  end
  local due = nil
  if ARGV[18] ~= '' then
    for seat in string.gmatch(ARGV[17], '%d+') do
      local mark = redis.call('HGET', meta, $TURN .. seat)
      if mark then
        local at = turn_deadline(string.match(mark, ':(%d+)$'), ARGV[18])
        if not due or at < due then due = at end
      end
    end
  end
  if due then redis.call('ZADD', KEYS[snap + 2], due, ARGV[6])
  else redis.call('ZREM', KEYS[snap + 2], ARGV[6]) end
  if lag then
    local behind = tonumber(redis.call('ZSCORE', KEYS[lag], ARGV[6]) or '0')
    if behind > 0 then
      redis.call('ZREM', KEYS[lag], ARGV[6])
      redis.call('INCRBY', KEYS[lag + 1], -behind)
    end
  end
  return {1, current + 1, version, last_at, 0, -2, 1, queued}
end
if lag then
  local added = version - current
  redis.call('ZINCRBY', KEYS[lag], added, ARGV[6])
  redis.call('INCRBY', KEYS[lag + 1], added)
end
local fresh = redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
local slot = -2
if fresh == 1 and drains then
  redis.call('LPUSH', KEYS[drains], ARGV[6])
  slot = -1
  for i = 1, slots do
    if redis.call('SET', KEYS[drains + i], ARGV[10], 'NX', 'PX', ARGV[9]) then
      slot = i - 1
      break
    end
  end
end
return {1, current + 1, version, last_at, fresh == 1 and 1 or 0, slot, 0, queued}
"""
)

LOAD: Final = lua_fields("""
-- Everything a load needs, read at one instant.
-- KEYS[1]: the game's stream; KEYS[2]: its snapshot hash; KEYS[3] (optional):
-- its seat tokens hash.
-- ARGV[1]: the version of the caller's cached state (0: none); ARGV[2]: the
-- time part of the id of that state's last entry ('': not known); then pairs
-- of game name and its current state schema id (a snapshot written with
-- another schema is not used).
-- Returns {} when the game has no stream, else {last entry id, cached,
-- snapshot, entries, tokens}:
--   cached: 1 when the cached state is still the stream's (its version is
--     not past the stream's and the entry it was folded from is there), else 0;
--   snapshot: {version, game, state} of a usable snapshot newer than a
--     cached state that is still the stream's, else nil;
--   entries: the ones after the snapshot if there is one, else after the
--     cached state if it is still the stream's, else the whole stream;
--   tokens: the HGETALL of KEYS[3], or nil when not asked for.
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
if #last == 0 then return {} end
local last_id = last[1][1]
local dash = string.find(last_id, '-', 1, true)
local version = tonumber(string.sub(last_id, 1, dash - 1))
local tokens = false
if KEYS[3] then tokens = redis.call('HGETALL', KEYS[3]) end
local have = tonumber(ARGV[1])
local cached = 0
if have > 0 and have <= version then
  if ARGV[2] == '' then
    cached = 1
  else
    local id = ARGV[1] .. '-' .. ARGV[2]
    cached = #redis.call('XRANGE', KEYS[1], id, id)
  end
end
if cached == 1 and have == version then return {last_id, 1, false, {}, tokens} end
local schema = {}
for i = 3, #ARGV, 2 do schema[ARGV[i]] = ARGV[i + 1] end
local snap = redis.call('HMGET', KEYS[2], $V, $G, $H, $S)
local at = tonumber(snap[1])
if at and at <= version and snap[2] and schema[snap[2]] == snap[3]
    and not (cached == 1 and at <= have) then
  local entries = redis.call('XRANGE', KEYS[1], tostring(at + 1), '+')
  return {last_id, cached, {snap[1], snap[2], snap[4]}, entries, tokens}
end
local from = '-'
if cached == 1 then from = tostring(have + 1) end
return {last_id, cached, false, redis.call('XRANGE', KEYS[1], from, '+'), tokens}
""")

SAVE_SNAPSHOT: Final = lua_fields("""
-- KEYS[1]: the snapshot hash. ARGV: version, game, encoded state, state schema id.
-- Replaces the snapshot only with a strictly newer version, or when the kept
-- one has another state schema (unusable since an engine changed); 1 if it did.
local kept = redis.call('HMGET', KEYS[1], $V, $H)
if kept[2] == ARGV[4] and tonumber(ARGV[1]) <= tonumber(kept[1]) then return 0 end
redis.call('HSET', KEYS[1], $V, ARGV[1], $G, ARGV[2], $S, ARGV[3], $H, ARGV[4])
return 1
""")

INDEX_GAME: Final = """
-- KEYS: shard meta hash, then the sets: all, by game, by status, by game and status.
-- ARGV: game id, meta value "<game> <status> <created_ms>", created_ms.
-- Adds a game once; returns 0 when it was already indexed.
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 0 end
for i = 2, 5 do redis.call('ZADD', KEYS[i], ARGV[3], ARGV[1]) end
return 1
"""

SET_STATUS: Final = """
-- KEYS: shard meta hash, old status set, old game+status set, new status set,
-- new game+status set. ARGV: game id, meta value expected, new meta value, created_ms.
-- Moves the game between status sets if its meta is still the one expected;
-- returns 0 (read again and retry) when it changed meanwhile.
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('ZADD', KEYS[4], ARGV[4], ARGV[1])
redis.call('ZADD', KEYS[5], ARGV[4], ARGV[1])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return 1
"""

POKE: Final = """
-- KEYS[1]: a game's follow-up marker. ARGV[1]: its TTL in ms.
-- Bumps the marker; 1 when it was newly set (enqueue a follow-up job),
-- 0 when a pending job will go round again.
local n = redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return n == 1 and 1 or 0
"""

FOLLOWUP_DONE: Final = """
-- KEYS: the game's stream, its follow-up marker, its failure count.
-- ARGV: the version the job projected, the marker value it saw when it
-- began that round ('' = none), the marker's TTL in ms.
-- Clears the marker (the job may end) only if nothing was appended or poked
-- since; otherwise refreshes it and returns 0: go round again.
local seen = redis.call('GET', KEYS[2]) or ''
if redis.call('XLEN', KEYS[1]) == tonumber(ARGV[1]) and seen == ARGV[2] then
  redis.call('DEL', KEYS[2], KEYS[3])
  return 1
end
if seen ~= '' then redis.call('PEXPIRE', KEYS[2], ARGV[3]) end
return 0
"""

CLAIM_DUE: Final = (
    clock.LUA
    + """
-- KEYS[1]: one shard of the timers index. ARGV: now (ms; '' = the server's
-- time), lease (ms), most to take.
-- Takes the entries due by now and puts them back due at now + lease, so an
-- entry whose claimer dies before its follow-up settles it fires again.
local now = ARGV[1]
if now == '' then now = clock_ms() end
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[3]))
local again = tonumber(now) + tonumber(ARGV[2])
for _, member in ipairs(due) do redis.call('ZADD', KEYS[1], again, member) end
return due
"""
)

DUE_IN: Final = (
    clock.LUA
    + """
-- KEYS[1]: one shard of the timers index. ARGV: a game id, ms from now.
-- Sets the game's entry due that long after the server's time now.
return redis.call('ZADD', KEYS[1], tonumber(clock_ms()) + tonumber(ARGV[2]), ARGV[1])
"""
)

STAMP: Final = (
    clock.LUA
    + """
-- KEYS[1]: a hash. ARGV[1]: a field. Sets the field to the server's time in
-- ms and returns it.
local now = clock_ms()
redis.call('HSET', KEYS[1], ARGV[1], now)
return tonumber(now)
"""
)

DRAIN_DISPATCH: Final = """
-- KEYS[1]: the list of games awaiting a follow-up; KEYS[2..]: the drain slots.
-- ARGV: a game id ('' = none: only make sure a drain serves the list), the
-- slots' lease in ms, a token for the slot taken.
-- Adds the game to the list, then takes a free slot if there is one: its
-- index (enqueue a drain job for it), or -1 (the drains running serve it).
if ARGV[1] ~= '' then
  redis.call('LPUSH', KEYS[1], ARGV[1])
elseif redis.call('LLEN', KEYS[1]) == 0 then
  return -1
end
for i = 2, #KEYS do
  if redis.call('SET', KEYS[i], ARGV[3], 'NX', 'PX', ARGV[2]) then return i - 2 end
end
return -1
"""

DRAIN_TAKE: Final = """
-- KEYS: the list of games awaiting a follow-up, a drain's slot.
-- ARGV: the drain's token, the slot's lease in ms.
-- false: the slot is no longer this drain's (stop); '': the list is empty;
-- else the next game, the slot's lease renewed.
if redis.call('GET', KEYS[2]) ~= ARGV[1] then return false end
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return redis.call('RPOP', KEYS[1]) or ''
"""

DRAIN_RELEASE: Final = """
-- KEYS: the list of games awaiting a follow-up, a drain's slot. ARGV: its token.
-- Frees the slot only while the list is empty: 1 (the drain may end), else 0
-- (a game came in meanwhile: take it). A slot no longer the drain's: 1.
if redis.call('GET', KEYS[2]) ~= ARGV[1] then return 1 end
if redis.call('LLEN', KEYS[1]) > 0 then return 0 end
redis.call('DEL', KEYS[2])
return 1
"""

DRAIN_FREE: Final = """
-- KEYS[1]: a drain's slot. ARGV[1]: its token. Frees the slot if it is the drain's.
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
"""

CREATION_RESERVE: Final = """
-- KEYS[1]: the idempotency record of a game creation. ARGV[1]: a pending
-- record (the request's fingerprint and a token of its own); ARGV[2]: how long
-- it may stay pending, in ms. Returns the record found (the key is another
-- request's), else false: the key is reserved for this request.
local kept = redis.call('GET', KEYS[1])
if kept then return kept end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return false
"""

CREATION_SETTLE: Final = """
-- KEYS[1]: the idempotency record of a game creation. ARGV[1]: the pending
-- record this request set; ARGV[2]: the record of the game it opened ('':
-- it opened none, the key is free again); ARGV[3]: that record's TTL in ms.
-- Only the request whose pending record it still is settles it: 1, else 0.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] == '' then redis.call('DEL', KEYS[1])
else redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) end
return 1
"""
