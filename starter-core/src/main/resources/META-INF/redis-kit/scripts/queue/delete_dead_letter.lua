-- Deletes one chosen dead letter with all its data. A message that is not dead (redriven or purged meanwhile, or
-- in another state) is left alone, in one script with the check.
-- KEYS: the eight queue keys (see enqueue.lua), [9] the group hash (see promote.lua), whose entry goes with the
-- message
-- ARGV[1] id
-- Returns 1 (deleted) or 0 (not a dead letter).
local id = ARGV[1]
if redis.call('ZREM', KEYS[4], id) == 0 then
  return 0
end
redis.call('HDEL', KEYS[5], id)
redis.call('HDEL', KEYS[9], id)
redis.call('HDEL', KEYS[6], id)
redis.call('HDEL', KEYS[7], id)
return 1
