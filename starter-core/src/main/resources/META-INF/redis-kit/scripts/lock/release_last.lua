-- Releases the owner's last hold as the client counts them: the lock goes whatever the stored count says (a
-- re-entry whose reply was lost may have raised it), and its channel is told that it is free.
-- KEYS[1] lock hash (see acquire.lua)
-- ARGV[1] owner, ARGV[2] channel told when the lock becomes free
-- Returns 0 when released, -1 when the owner does not hold the lock (so a replay changes nothing).
if redis.call('HGET', KEYS[1], 'o') ~= ARGV[1] then
  return -1
end
redis.call('DEL', KEYS[1])
redis.call('PUBLISH', ARGV[2], '1')
return 0
