-- Removes members from a cell-sharded index: from their cell, the member hash and the update times.
-- KEYS[1] hash of member to cell id, KEYS[2] sorted set of update times
-- ARGV[1] the key of a cell without its id (same hash tag as KEYS); ARGV[2..] members
-- Returns how many members the index held
local removed = 0
for i = 2, #ARGV do
  local cell = redis.call('HGET', KEYS[1], ARGV[i])
  if cell then
    removed = removed + redis.call('ZREM', ARGV[1] .. cell, ARGV[i])
    redis.call('HDEL', KEYS[1], ARGV[i])
  end
  redis.call('ZREM', KEYS[2], ARGV[i])
end
return removed
