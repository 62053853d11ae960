-- Deletes a cache entry and tells the near caches of every instance to drop their copy.
-- KEYS[1]: the entry's key.
-- ARGV[1]: the cache's channel; ARGV[2]: the invalidation message.
-- Returns the number of keys deleted (0 or 1).
local deleted = redis.call('DEL', KEYS[1])
redis.call('PUBLISH', ARGV[1], ARGV[2])
return deleted
