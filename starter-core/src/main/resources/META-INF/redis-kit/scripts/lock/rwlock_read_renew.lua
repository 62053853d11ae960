-- Extends the lease of an owner's read hold while it still reads; never revives it.
-- KEYS[1] hash, KEYS[2] readers (see rwlock_acquire.lua)
-- ARGV[1] owner, ARGV[2] lease in ms
-- Returns 1 when renewed, 0 when the owner no longer reads.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local owner = ARGV[1]
local ends = redis.call('ZSCORE', KEYS[2], owner)
if not ends or tonumber(ends) <= now or not redis.call('HGET', KEYS[1], 'rc:' .. owner) then
  return 0
end
local until_ = now + tonumber(ARGV[2])
redis.call('ZADD', KEYS[2], until_, owner)
local keyTtl = redis.call('PTTL', KEYS[1])
if keyTtl >= 0 and now + keyTtl < until_ then
  redis.call('PEXPIRE', KEYS[1], until_ - now)
  redis.call('PEXPIRE', KEYS[2], until_ - now)
end
return 1
