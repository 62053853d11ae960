-- An owner stops waiting for the write lock and holds no write hold: its wait ran out or was cancelled, or an
-- attempt whose reply was lost must be undone. Readers kept out by its place may read again.
-- KEYS[1] hash, KEYS[2] readers, KEYS[3] waiting writers (see rwlock_acquire.lua)
-- ARGV[1] owner, ARGV[2] channel told when readers or writers may pass now
-- Returns 1 when it ended a write hold the owner had, else 0.
local ended = 0
if redis.call('HGET', KEYS[1], 'w') == ARGV[1] then
  redis.call('HDEL', KEYS[1], 'w', 'wc', 'wf', 'wd')
  if redis.call('HLEN', KEYS[1]) == 0 then
    redis.call('DEL', KEYS[1], KEYS[2])
  end
  ended = 1
end
local left = redis.call('ZREM', KEYS[3], ARGV[1])
if ended == 1 or (left == 1 and redis.call('ZCARD', KEYS[3]) == 0) then
  redis.call('PUBLISH', ARGV[2], '*')
end
return ended
