-- Extends the lease of a lock while its owner still holds it.
-- KEYS[1] lock hash (see acquire.lua)
-- ARGV[1] owner, ARGV[2] lease in ms
-- Returns 1 when renewed, 0 when the owner no longer holds the lock (it is never revived).
if redis.call('HGET', KEYS[1], 'o') == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
