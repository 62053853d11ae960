-- An owner stops waiting for a fair lock and holds nothing of it: its wait ran out or was cancelled, or an
-- attempt whose reply was lost must be undone. The first in line is woken when this frees the lock or moves
-- the line.
-- KEYS[1] lock hash, KEYS[2] line, KEYS[3] places (KEYS[1], KEYS[3] and KEYS[4] of fairlock_acquire.lua)
-- ARGV[1] owner, ARGV[2] channel of the lock
-- Returns 1 when it freed a lock the owner held, else 0.
local freed = 0
if redis.call('HGET', KEYS[1], 'o') == ARGV[1] then
  redis.call('DEL', KEYS[1])
  freed = 1
end
local wasFirst = redis.call('ZRANGE', KEYS[2], 0, 0)[1] == ARGV[1]
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
if freed == 1 or wasFirst then
  local first = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
  if first and redis.call('EXISTS', KEYS[1]) == 0 then
    redis.call('PUBLISH', ARGV[2], first)
  end
end
return freed
