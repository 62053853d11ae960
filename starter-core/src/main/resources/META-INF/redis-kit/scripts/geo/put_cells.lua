-- Puts members into the geo sets of their geohash cells; a member whose cell changed leaves its old cell in
-- the same call, so it is never in two cells or none. With expiry, also sweeps expired members.
-- KEYS[1] hash of member to cell id, KEYS[2] sorted set of update times in ms (used when ttl > 0)
-- ARGV[1] member ttl in ms, 0 when members never expire; ARGV[2] now in ms, pinned by tests, empty for TIME;
-- ARGV[3] most expired members to sweep; ARGV[4] the key of a cell without its id (cells share the hash tag of
-- KEYS, so every cell key is in their slot); ARGV[5..] cell id, longitude, latitude, member, repeated
-- Returns the number of expired members swept
local ttl = tonumber(ARGV[1])
local prefix = ARGV[4]
local now = 0
if ttl > 0 then
  now = tonumber(ARGV[2])
  if not now then
    local time = redis.call('TIME')
    now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  end
end
for i = 5, #ARGV, 4 do
  local cell, member = ARGV[i], ARGV[i + 3]
  local old = redis.call('HGET', KEYS[1], member)
  if old and old ~= cell then
    redis.call('ZREM', prefix .. old, member)
  end
  redis.call('GEOADD', prefix .. cell, ARGV[i + 1], ARGV[i + 2], member)
  redis.call('HSET', KEYS[1], member, cell)
  if ttl > 0 then
    redis.call('ZADD', KEYS[2], now, member)
    redis.call('PEXPIRE', prefix .. cell, ttl)
  end
end
if ttl == 0 then
  return 0
end
local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now - ttl, 'LIMIT', 0, tonumber(ARGV[3]))
for _, member in ipairs(expired) do
  local cell = redis.call('HGET', KEYS[1], member)
  if cell then
    redis.call('ZREM', prefix .. cell, member)
  end
  redis.call('HDEL', KEYS[1], member)
  redis.call('ZREM', KEYS[2], member)
end
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('PEXPIRE', KEYS[2], ttl)
return #expired
