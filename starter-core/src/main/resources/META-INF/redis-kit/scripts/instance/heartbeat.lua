-- One instance's heartbeat: records it as alive now (server time) with what it reports, and forgets instances
-- whose last heartbeat is older than the retention.
-- KEYS[1] beats: sorted set, member = instance id, score = its last heartbeat (server ms)
-- KEYS[2] records: hash, field = instance id, value = its encoded record
-- ARGV[1] instance id, ARGV[2] its record, ARGV[3] retention in ms (how long a silent instance stays listed)
-- Returns the server time of the heartbeat in ms.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local retention = tonumber(ARGV[3])
for _, gone in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now - retention)) do
  redis.call('HDEL', KEYS[2], gone)
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - retention)
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[1], retention)
redis.call('PEXPIRE', KEYS[2], retention)
return now
