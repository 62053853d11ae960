-- Starts a scheduled run: takes the lock only when no key exists, for a lease that never outlasts lock-at-most.
-- KEYS[1] lock hash (see acquire.lua, plus a = start and m = end of lock-at-most, both server ms)
-- KEYS[2] last fencing token handed out for this name
-- ARGV[1] owner (one per run), ARGV[2] lease in ms, ARGV[3] lock-at-most in ms, ARGV[4] ttl of the fencing key
-- in ms
-- Returns {1, fencing token, 1} when the run may start, {0, ms until the key ends} when a run holds the lock or a
-- finished one keeps it for its lock-at-least time. A replay (the owner is unique per run) answers as the first call.
local owner = redis.call('HGET', KEYS[1], 'o')
if owner == ARGV[1] then
  return {1, tonumber(redis.call('HGET', KEYS[1], 'f')), 1}
end
if redis.call('EXISTS', KEYS[1]) == 1 then
  return {0, redis.call('PTTL', KEYS[1])}
end
local now = redis.call('TIME')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
-- Same token rule as acquire.lua: server microseconds as a floor, strictly above the last token.
local token = tonumber(now[1]) * 1000000 + tonumber(now[2])
local last = tonumber(redis.call('GET', KEYS[2]) or '0')
if token <= last then
  token = last + 1
end
local text = string.format('%d', token)
local atMost = tonumber(ARGV[3])
local lease = math.min(tonumber(ARGV[2]), atMost)
redis.call('SET', KEYS[2], text, 'PX', ARGV[4])
redis.call('HSET', KEYS[1], 'o', ARGV[1], 'c', '1', 'f', text, 'a', string.format('%d', ms), 'm',
  string.format('%d', ms + atMost))
redis.call('PEXPIRE', KEYS[1], lease)
return {1, token, 1}
