-- Releases the owner's last hold of a fair lock, as the client counts them, and wakes the first in line
-- (after dropping waiters whose place ended), wherever it waits: the lock is kept for it, since a free lock
-- goes to the first in line only.
-- KEYS[1] lock hash, KEYS[2] line, KEYS[3] places (KEYS[1], KEYS[3] and KEYS[4] of fairlock_acquire.lua)
-- ARGV[1] owner, ARGV[2] channel of the lock
-- Returns 0 when released, -1 when the owner does not hold the lock (so a replay changes nothing).
if redis.call('HGET', KEYS[1], 'o') ~= ARGV[1] then
  return -1
end
redis.call('DEL', KEYS[1])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
for _, gone in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now)) do
  redis.call('ZREM', KEYS[2], gone)
end
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
local first = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
if first then
  redis.call('PUBLISH', ARGV[2], first)
end
return 0
