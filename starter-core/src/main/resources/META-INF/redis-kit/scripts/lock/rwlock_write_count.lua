-- Sets the hold count of an owner's write hold, as the client counts it: one more for a re-entry, one less for
-- a release, 0 to end the hold (the last release, or the undo of a first hold whose reply was lost). Setting,
-- not adding, makes a replay change nothing. A read hold the writer took meanwhile stays (a downgrade).
-- KEYS[1] hash, KEYS[2] readers (see rwlock_acquire.lua)
-- ARGV[1] owner, ARGV[2] the new hold count, ARGV[3] lease in ms for the holds that remain,
-- ARGV[4] channel told when the write hold ends
-- Returns the holds left (0 when the hold ended), -1 when the owner does not write (its lease ended).
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if redis.call('HGET', KEYS[1], 'w') ~= ARGV[1] or tonumber(redis.call('HGET', KEYS[1], 'wd')) <= now then
  return -1
end
local count = tonumber(ARGV[2])
if count > 0 then
  redis.call('HSET', KEYS[1], 'wc', count, 'wd', now + tonumber(ARGV[3]))
else
  redis.call('HDEL', KEYS[1], 'w', 'wc', 'wf', 'wd')
end
local last = tonumber(redis.call('HGET', KEYS[1], 'wd') or '0')
local top = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
if top[2] and tonumber(top[2]) > last then
  last = tonumber(top[2])
end
if last > now then
  redis.call('PEXPIRE', KEYS[1], last - now)
  redis.call('PEXPIRE', KEYS[2], last - now)
else
  redis.call('DEL', KEYS[1], KEYS[2])
end
if count == 0 then
  -- Every local waiter tries again: readers all pass, one writer wins.
  redis.call('PUBLISH', ARGV[4], '*')
end
return count
