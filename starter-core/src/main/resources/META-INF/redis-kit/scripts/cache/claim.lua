-- Reads a cache entry or claims the right to load it, in one step, so that of all the callers that miss one
-- entry across every instance exactly one loads it.
-- KEYS[1]: the entry's key; KEYS[2]: its load lease, in the same hash slot.
-- ARGV[1]: the caller's token; ARGV[2]: the lease in ms.
-- Returns {1, value, pttl} when the entry exists (pttl: the ms it has left, -1 without expiry); {2} when the
-- caller now holds the load lease; {0} when another caller holds it.
local value = redis.call('GET', KEYS[1])
if value then
  return {1, value, redis.call('PTTL', KEYS[1])}
end
if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return {2}
end
return {0}
