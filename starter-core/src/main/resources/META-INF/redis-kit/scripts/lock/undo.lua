-- Undoes one acquisition whose reply never arrived, should it have taken effect.
-- KEYS[1] lock hash (see acquire.lua)
-- ARGV[1] owner, ARGV[2] lease in ms for the holds that remain, ARGV[3] request id of the acquisition,
-- ARGV[4] channel told when the lock becomes free
-- Returns the holds left (0 when the lock became free), -1 when the owner does not hold the lock, -2 when that
-- acquisition is not the last one applied: it never took effect, or it was undone already (a replay).
if redis.call('HGET', KEYS[1], 'o') ~= ARGV[1] then
  return -1
end
if redis.call('HGET', KEYS[1], 'r') ~= ARGV[3] then
  return -2
end
local count = redis.call('HINCRBY', KEYS[1], 'c', -1)
if count > 0 then
  -- Mark the undo done, so that a replay of it finds nothing to undo.
  redis.call('HSET', KEYS[1], 'r', 'u' .. ARGV[3])
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return count
end
redis.call('DEL', KEYS[1])
redis.call('PUBLISH', ARGV[4], '1')
return 0
