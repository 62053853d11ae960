-- Starts a count-down latch at a count, unless one is counting down already.
-- KEYS[1] latch: hash {c = count}
-- KEYS[2] ids of the count-downs applied since the count was set (a replay is applied once)
-- ARGV[1] count, ARGV[2] ms the latch is kept while nobody counts it down (then it is abandoned and expires)
-- Returns 1 when set, 0 when a latch with a count above zero exists.
local count = tonumber(redis.call('HGET', KEYS[1], 'c') or '0')
if count > 0 then
  return 0
end
redis.call('DEL', KEYS[2])
redis.call('HSET', KEYS[1], 'c', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
