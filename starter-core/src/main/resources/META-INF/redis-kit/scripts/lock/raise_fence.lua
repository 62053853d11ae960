-- Raises the last fencing token handed out for a name to at least a given token, so that this server's next
-- acquisition of the name hands out a higher one. Redlock tells every node of its majority the token it chose.
-- KEYS[1] last fencing token handed out for this name (see acquire.lua)
-- ARGV[1] token, ARGV[2] ttl of the fencing key in ms
-- Returns the last token stored now: at least ARGV[1].
local last = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[1]) > last then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return tonumber(ARGV[1])
end
return last
