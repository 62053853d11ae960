-- Puts members into one geo set (an unsharded index, or one region), and with expiry sweeps expired ones.
-- KEYS[1] the geo set, KEYS[2] the sorted set of update times in ms (used when ttl > 0)
-- ARGV[1] member ttl in ms, 0 when members never expire; ARGV[2] now in ms, pinned by tests, empty for TIME;
-- ARGV[3] most expired members to sweep; ARGV[4..] longitude, latitude, member, repeated
-- Returns the number of expired members swept
local ttl = tonumber(ARGV[1])
for i = 4, #ARGV, 3 do
  redis.call('GEOADD', KEYS[1], ARGV[i], ARGV[i + 1], ARGV[i + 2])
end
if ttl == 0 then
  return 0
end
local now = tonumber(ARGV[2])
if not now then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
for i = 4, #ARGV, 3 do
  redis.call('ZADD', KEYS[2], now, ARGV[i + 2])
end
local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now - ttl, 'LIMIT', 0, tonumber(ARGV[3]))
for _, member in ipairs(expired) do
  redis.call('ZREM', KEYS[1], member)
  redis.call('ZREM', KEYS[2], member)
end
-- Every member was put at most ttl ago once the keys live ttl past the last put: they can go together.
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('PEXPIRE', KEYS[2], ttl)
return #expired
