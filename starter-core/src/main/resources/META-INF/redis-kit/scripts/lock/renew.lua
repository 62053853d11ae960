-- Extends the lease of a lock while its owner still holds it, never past the end of a scheduled run's
-- lock-at-most (field m, server ms; see scheduled_acquire.lua).
-- KEYS[1] lock hash (see acquire.lua)
-- ARGV[1] owner, ARGV[2] lease in ms
-- Returns 1 when renewed, 0 when the owner no longer holds the lock (it is never revived) or its lock-at-most
-- has passed.
if redis.call('HGET', KEYS[1], 'o') ~= ARGV[1] then
  return 0
end
local lease = tonumber(ARGV[2])
local atMost = redis.call('HGET', KEYS[1], 'm')
if atMost then
  local now = redis.call('TIME')
  local left = tonumber(atMost) - (tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000))
  if left <= 0 then
    return 0
  end
  lease = math.min(lease, left)
end
redis.call('PEXPIRE', KEYS[1], lease)
return 1
