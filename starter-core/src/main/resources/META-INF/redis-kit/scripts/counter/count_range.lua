-- Counts the distinct members of a range of buckets by merging them into a short-lived cached key, so that
-- repeated counts of one range cost one PFCOUNT of one key.
-- KEYS[1]: the cache key; KEYS[2..]: the buckets (all in the counter's hash tag). ARGV[1]: the cache's TTL in ms.
-- Returns the estimate.
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('PFMERGE', unpack(KEYS))
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
return redis.call('PFCOUNT', KEYS[1])
