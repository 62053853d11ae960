-- Hands a lock from its owner's last hold straight to a waiting owner of the same client, with a new fencing
-- token: no release message, no race with other clients.
-- KEYS[1] lock hash (see acquire.lua), KEYS[2] last fencing token handed out for this name
-- ARGV[1] owner, ARGV[2] next owner, ARGV[3] its lease in ms, ARGV[4] its request id, ARGV[5] ttl of the
-- fencing key in ms
-- Returns the next owner's fencing token, or -1 when the owner does not hold the lock (so a replay changes
-- nothing).
if redis.call('HGET', KEYS[1], 'o') ~= ARGV[1] then
  return -1
end
-- Same token rule as acquire.lua: server microseconds as a floor, strictly above the last token.
local now = redis.call('TIME')
local token = tonumber(now[1]) * 1000000 + tonumber(now[2])
local previous = tonumber(redis.call('GET', KEYS[2]) or '0')
if token <= previous then
  token = previous + 1
end
local text = string.format('%d', token)
redis.call('SET', KEYS[2], text, 'PX', ARGV[5])
redis.call('HSET', KEYS[1], 'o', ARGV[2], 'c', '1', 'f', text, 'r', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return token
