-- Reads a cache entry with the time it has left, for caches that act before an entry expires (early refresh,
-- stale-while-revalidate).
-- KEYS[1]: the entry's key.
-- Returns {value, pttl} when the entry exists (pttl in ms, -1 without expiry); {} when it does not.
local value = redis.call('GET', KEYS[1])
if value then
  return {value, redis.call('PTTL', KEYS[1])}
end
return {}
