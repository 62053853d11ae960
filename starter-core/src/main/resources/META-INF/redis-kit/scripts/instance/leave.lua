-- One instance leaving on a clean shutdown: it is forgotten at once rather than shown as gone.
-- KEYS[1] beats, KEYS[2] records (see heartbeat.lua); ARGV[1] instance id
-- Returns 1 when it was listed.
redis.call('HDEL', KEYS[2], ARGV[1])
return redis.call('ZREM', KEYS[1], ARGV[1])
