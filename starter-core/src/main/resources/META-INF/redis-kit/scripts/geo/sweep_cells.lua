-- Removes expired members of a cell-sharded index, at most a batch.
-- KEYS[1] hash of member to cell id, KEYS[2] sorted set of update times in ms
-- ARGV[1] member ttl in ms; ARGV[2] now in ms, pinned by tests, empty for TIME; ARGV[3] most members to remove;
-- ARGV[4] the key of a cell without its id (same hash tag as KEYS)
-- Returns the number removed
local now = tonumber(ARGV[2])
if not now then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now - tonumber(ARGV[1]), 'LIMIT', 0, tonumber(ARGV[3]))
for _, member in ipairs(expired) do
  local cell = redis.call('HGET', KEYS[1], member)
  if cell then
    redis.call('ZREM', ARGV[4] .. cell, member)
  end
  redis.call('HDEL', KEYS[1], member)
  redis.call('ZREM', KEYS[2], member)
end
return #expired
