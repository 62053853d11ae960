-- Counts a latch down by one; at zero it tells the channel and is kept open for a while.
-- KEYS[1] latch, KEYS[2] applied count-down ids (see set_count.lua)
-- ARGV[1] id of this count-down, ARGV[2] ms kept while counting, ARGV[3] ms kept open after zero,
-- ARGV[4] channel told when the count reaches zero
-- Returns the count after this call, or -1 when no latch is set (never set, or expired).
local count = redis.call('HGET', KEYS[1], 'c')
if not count then
  return -1
end
count = tonumber(count)
if count == 0 then
  return 0
end
if redis.call('SADD', KEYS[2], ARGV[1]) == 0 then
  -- A replay of a count-down whose reply was lost: counted once.
  return count
end
count = count - 1
redis.call('HSET', KEYS[1], 'c', count)
local keep = ARGV[2]
if count == 0 then
  keep = ARGV[3]
  redis.call('PUBLISH', ARGV[4], '0')
end
redis.call('PEXPIRE', KEYS[1], keep)
redis.call('PEXPIRE', KEYS[2], keep)
return count
