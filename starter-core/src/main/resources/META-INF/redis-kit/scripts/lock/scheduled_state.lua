-- Reads a scheduled lock's state without changing it: one PTTL on the lock hash, and its owner when it exists.
-- KEYS[1] lock hash (see scheduled_acquire.lua)
-- Returns {1, ms left} when a run holds the lock, {2, ms left} when a finished run keeps it for the rest of its
-- lock-at-least (scheduled_release.lua empties the owner), {0, 0} when it is free; ms left is -1 for a key
-- without a TTL, which redis-kit never writes.
local ttl = redis.call('PTTL', KEYS[1])
if ttl == -2 then
  return {0, 0}
end
if redis.call('HGET', KEYS[1], 'o') == '' then
  return {2, ttl}
end
return {1, ttl}
