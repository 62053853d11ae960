-- Writes a cache entry unless it exists; a write tells the near caches of every instance to drop their copy.
-- KEYS[1]: the entry's key.
-- ARGV[1]: the bytes; ARGV[2]: their TTL in ms; ARGV[3]: the cache's channel; ARGV[4]: the invalidation message.
-- Returns the existing bytes, or false (nil to the client) when the entry was written.
local existing = redis.call('GET', KEYS[1])
if existing then
  return existing
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('PUBLISH', ARGV[3], ARGV[4])
return false
