-- Reads the most viewed items of the trending period: the union of its buckets, computed into a cached key when
-- that key is missing, so that one reader computes it and the others read it.
-- KEYS[1]: the cache key (named by the current bucket); KEYS[2..]: the buckets of the period.
-- ARGV[1]: the cache's TTL in ms; ARGV[2]: how many items.
-- Returns item, views, item, views, ... most viewed first (ties: greater item first).
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('ZUNIONSTORE', KEYS[1], #KEYS - 1, unpack(KEYS, 2))
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
return redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[2]) - 1, 'REV', 'WITHSCORES')
