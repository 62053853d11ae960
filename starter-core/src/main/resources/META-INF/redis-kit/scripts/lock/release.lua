-- Releases one hold of a lock its owner holds more than once, as the client counts its holds.
-- KEYS[1] lock hash (see acquire.lua)
-- ARGV[1] owner, ARGV[2] lease in ms for the holds that remain, ARGV[3] request id,
-- ARGV[4] channel told when the lock becomes free
-- Returns the holds left: 0 when the lock became free (the stored count ran out first), -1 when the owner does
-- not hold the lock. A replay of the same request changes nothing.
if redis.call('HGET', KEYS[1], 'o') ~= ARGV[1] then
  return -1
end
if redis.call('HGET', KEYS[1], 'r') == ARGV[3] then
  return tonumber(redis.call('HGET', KEYS[1], 'c'))
end
local count = redis.call('HINCRBY', KEYS[1], 'c', -1)
if count > 0 then
  redis.call('HSET', KEYS[1], 'r', ARGV[3])
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return count
end
redis.call('DEL', KEYS[1])
redis.call('PUBLISH', ARGV[4], '1')
return 0
