-- A first acquisition of a fair lock: granted in arrival order. A free lock goes to the first in line (or to
-- anyone when nobody waits); an owner that cannot have it takes a place at the end of the line, or keeps its
-- place, which each of its attempts renews. A waiter that stopped renewing its place (its process died or
-- stopped) loses it when the place ends, so that it holds up the line for one waiter timeout at most.
-- KEYS[1] lock hash {o = owner, c = hold count, f = fencing token, r = last request id} (as the lock's)
-- KEYS[2] last fencing token handed out for this name
-- KEYS[3] line: zset of waiter -> arrival number
-- KEYS[4] places: zset of waiter -> end of its place (server ms)
-- ARGV[1] owner, ARGV[2] lease in ms, ARGV[3] request id, ARGV[4] ttl of the fencing key in ms,
-- ARGV[5] how long a place lasts unless its waiter attempts again, in ms, ARGV[6] channel of the lock
-- Returns {1, fencing token, 1} when the owner holds the lock (a lock it already had is adopted as one hold),
--         {0, ms until the holder's lease ends (-1 when free), the owner's position in line (1 = next)}.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local owner = ARGV[1]
local dead = redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', now)
for _, gone in ipairs(dead) do
  redis.call('ZREM', KEYS[3], gone)
end
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now)

local holder = redis.call('HGET', KEYS[1], 'o')
if holder == owner then
  redis.call('HSET', KEYS[1], 'c', '1', 'r', ARGV[3])
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  redis.call('ZREM', KEYS[3], owner)
  redis.call('ZREM', KEYS[4], owner)
  return {1, tonumber(redis.call('HGET', KEYS[1], 'f')), 1}
end
local first = redis.call('ZRANGE', KEYS[3], 0, 0)[1]
if not holder and (not first or first == owner) then
  local token = tonumber(t[1]) * 1000000 + tonumber(t[2])
  local last = tonumber(redis.call('GET', KEYS[2]) or '0')
  if token <= last then
    token = last + 1
  end
  local text = string.format('%d', token)
  redis.call('SET', KEYS[2], text, 'PX', ARGV[4])
  redis.call('HSET', KEYS[1], 'o', owner, 'c', '1', 'f', text, 'r', ARGV[3])
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  redis.call('ZREM', KEYS[3], owner)
  redis.call('ZREM', KEYS[4], owner)
  return {1, token, 1}
end
if not redis.call('ZSCORE', KEYS[3], owner) then
  local tail = redis.call('ZRANGE', KEYS[3], -1, -1, 'WITHSCORES')
  local number = 1
  if tail[2] then
    number = tonumber(tail[2]) + 1
  end
  redis.call('ZADD', KEYS[3], number, owner)
end
redis.call('ZADD', KEYS[4], now + tonumber(ARGV[5]), owner)
local latest = redis.call('ZRANGE', KEYS[4], -1, -1, 'WITHSCORES')
local keep = tonumber(latest[2]) - now
redis.call('PEXPIRE', KEYS[3], keep)
redis.call('PEXPIRE', KEYS[4], keep)
first = redis.call('ZRANGE', KEYS[3], 0, 0)[1]
if not holder and #dead > 0 and first ~= owner then
  -- Dead waiters left the line in front of a free lock: wake the one now first.
  redis.call('PUBLISH', ARGV[6], first)
end
local ttl = -1
if holder then
  ttl = redis.call('PTTL', KEYS[1])
end
return {0, ttl, redis.call('ZRANK', KEYS[3], owner) + 1}
