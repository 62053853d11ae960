-- Gives an owner's permits back and wakes waiters: one message on the channel per permit freed.
-- KEYS[1] holders, KEYS[2] state (see semaphore_acquire.lua)
-- ARGV[1] owner, ARGV[2] channel told of freed permits
-- Returns the permits freed, or -1 when the owner held none (its lease ended, or it released before).
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local ends = redis.call('ZSCORE', KEYS[1], ARGV[1])
local held = redis.call('HGET', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
if not ends or not held or tonumber(ends) <= now then
  -- An ended lease is not revived by a late release: its permits were free for others already.
  return -1
end
local permits = tonumber(string.match(held, '(%d+):'))
for _ = 1, math.min(permits, 64) do
  redis.call('PUBLISH', ARGV[2], '1')
end
return permits
