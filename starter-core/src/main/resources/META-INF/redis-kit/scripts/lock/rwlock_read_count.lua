-- Sets the hold count of an owner's read hold, as the client counts it: one more for a re-entry, one less for
-- a release, 0 to end the hold (the last release, or the undo of a first hold whose reply was lost). Setting,
-- not adding, makes a replay change nothing.
-- KEYS[1] hash, KEYS[2] readers (see rwlock_acquire.lua)
-- ARGV[1] owner, ARGV[2] the new hold count, ARGV[3] lease in ms for the holds that remain,
-- ARGV[4] channel told when the last reader leaves
-- Returns the holds left (0 when the hold ended), -1 when the owner does not read (its lease ended).
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local owner = ARGV[1]
local ends = redis.call('ZSCORE', KEYS[2], owner)
if not ends or tonumber(ends) <= now or not redis.call('HGET', KEYS[1], 'rc:' .. owner) then
  return -1
end
local count = tonumber(ARGV[2])
if count > 0 then
  redis.call('HSET', KEYS[1], 'rc:' .. owner, count)
  redis.call('ZADD', KEYS[2], now + tonumber(ARGV[3]), owner)
else
  redis.call('HDEL', KEYS[1], 'rc:' .. owner, 'rf:' .. owner)
  redis.call('ZREM', KEYS[2], owner)
end
local last = tonumber(redis.call('HGET', KEYS[1], 'wd') or '0')
local top = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
if top[2] and tonumber(top[2]) > last then
  last = tonumber(top[2])
end
if last > now then
  redis.call('PEXPIRE', KEYS[1], last - now)
  redis.call('PEXPIRE', KEYS[2], last - now)
end
if count == 0 and redis.call('ZCOUNT', KEYS[2], '(' .. now, '+inf') == 0 then
  -- Nobody reads any more: every local waiter tries again (one writer wins; readers all pass).
  redis.call('PUBLISH', ARGV[4], '*')
end
return count
