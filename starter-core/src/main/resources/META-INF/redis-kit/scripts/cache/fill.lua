-- Ends a load: stores what the loader returned (unless there is nothing to store), gives up the load lease if
-- the caller still holds it, and tells the waiters of every instance the outcome on the cache's channel. When
-- nothing is stored, the outcome is also kept under the loader's token for the waiters that ask Redis rather
-- than hear the message (claim.lua): the lease is free before the message arrives, and a waiter polling in
-- between would otherwise take it and load again.
-- KEYS[1]: the entry's key; KEYS[2]: its load lease; KEYS[3]: the outcome of the last load that stored nothing;
-- all in the same hash slot.
-- ARGV[1]: the loader's token; ARGV[2]: the stored bytes; ARGV[3]: their TTL in ms, 0 to store nothing (a
-- failed load, or a null result where nulls are not cached); ARGV[4]: the cache's channel; ARGV[5]: the message;
-- ARGV[6]: how long the outcome is kept, in ms (the load timeout: no waiter of this load waits longer).
-- Returns 1.
if tonumber(ARGV[3]) > 0 then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
else
  redis.call('SET', KEYS[3], ARGV[1] .. ARGV[5], 'PX', ARGV[6])
end
if redis.call('GET', KEYS[2]) == ARGV[1] then
  redis.call('DEL', KEYS[2])
end
redis.call('PUBLISH', ARGV[4], ARGV[5])
return 1
