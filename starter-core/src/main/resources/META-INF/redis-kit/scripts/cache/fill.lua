-- Ends a load: stores what the loader returned (unless there is nothing to store), gives up the load lease if
-- the caller still holds it, and tells the waiters of every instance the outcome on the cache's channel.
-- KEYS[1]: the entry's key; KEYS[2]: its load lease, in the same hash slot.
-- ARGV[1]: the loader's token; ARGV[2]: the stored bytes; ARGV[3]: their TTL in ms, 0 to store nothing (a
-- failed load, or a null result where nulls are not cached); ARGV[4]: the cache's channel; ARGV[5]: the message.
-- Returns 1.
if tonumber(ARGV[3]) > 0 then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
end
if redis.call('GET', KEYS[2]) == ARGV[1] then
  redis.call('DEL', KEYS[2])
end
redis.call('PUBLISH', ARGV[4], ARGV[5])
return 1
