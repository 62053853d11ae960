-- Raises the last fencing token handed out for a name to at least a given token, so that this server's next
-- acquisition of the name hands out a higher one. Redlock tells every node of its majority the token it chose.
-- The lock, while the owner still holds it here, records that token as its own, so that every node of the
-- majority says the same token for the holder (each node handed out its own, from its own clock).
-- KEYS[1] last fencing token handed out for this name (see acquire.lua), KEYS[2] the lock (see acquire.lua)
-- ARGV[1] token, ARGV[2] ttl of the fencing key in ms, ARGV[3] owner
-- Returns the last token stored now: at least ARGV[1].
if redis.call('HGET', KEYS[2], 'o') == ARGV[3] then
  redis.call('HSET', KEYS[2], 'f', ARGV[1])
end
local last = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[1]) > last then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return tonumber(ARGV[1])
end
return last
