-- Sets the total of a semaphore at run time for every instance, or clears that setting (ARGV[1] = 0) so that
-- each caller's configured total applies again. Held permits are never revoked: after a shrink, acquisitions
-- wait until the holders are below the new total. A grown total wakes waiters.
-- KEYS[1] holders, KEYS[2] state (see semaphore_acquire.lua)
-- ARGV[1] new total (0 to clear), ARGV[2] channel told of freed permits, ARGV[3] ttl of the state in ms
-- Returns the permits held now (leases that ended are not counted).
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local used = 0
local holders = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. now, '+inf')
for _, holder in ipairs(holders) do
  local entry = redis.call('HGET', KEYS[2], holder)
  if entry then
    used = used + tonumber(string.match(entry, '(%d+):'))
  end
end
local total = tonumber(ARGV[1])
if total == 0 then
  redis.call('HDEL', KEYS[2], 'o')
  return used
end
redis.call('HSET', KEYS[2], 'o', ARGV[1])
if redis.call('PTTL', KEYS[2]) < tonumber(ARGV[3]) then
  redis.call('PEXPIRE', KEYS[2], ARGV[3])
end
for _ = 1, math.min(math.max(total - used, 0), 64) do
  redis.call('PUBLISH', ARGV[2], '1')
end
return used
