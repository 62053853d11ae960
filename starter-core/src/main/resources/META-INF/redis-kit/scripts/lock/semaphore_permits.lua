-- Reads a semaphore without changing it.
-- KEYS[1] holders, KEYS[2] state (see semaphore_acquire.lua)
-- ARGV[1] total the caller was configured with
-- Returns {total in force, permits held by leases that have not ended}.
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
return {tonumber(redis.call('HGET', KEYS[2], 'o') or ARGV[1]), used}
