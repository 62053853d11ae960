-- Extends the lease of an owner's permits while it still holds them; an ended lease is never revived.
-- KEYS[1] holders, KEYS[2] state (see semaphore_acquire.lua)
-- ARGV[1] owner, ARGV[2] lease in ms, ARGV[3] ttl of the state in ms
-- Returns 1 when renewed, 0 when the owner no longer holds permits.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local ends = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not ends or tonumber(ends) <= now or not redis.call('HGET', KEYS[2], ARGV[1]) then
  return 0
end
redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[2]), ARGV[1])
local last_end = tonumber(redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')[2])
redis.call('PEXPIRE', KEYS[1], math.max(last_end - now, 1))
redis.call('PEXPIRE', KEYS[2], math.max(last_end - now, tonumber(ARGV[3])))
return 1
