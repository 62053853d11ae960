-- Gives an owner permits of a semaphore with a new fencing token: the function grant of the scripts that take
-- permits (semaphore_acquire.lua, semaphore_hand_off.lua), included by SemaphoreScripts.
-- KEYS[1] holders, KEYS[2] state (see semaphore_acquire.lua)
-- ARGV[1] owner, ARGV[2] permits, ARGV[3] lease in ms, ARGV[4] ttl of the state in ms,
-- ARGV[5] and ARGV[6] the server's TIME (seconds, microseconds) read by the calling script
-- Returns the fencing token.
local now = tonumber(ARGV[5]) * 1000 + math.floor(tonumber(ARGV[6]) / 1000)
-- Server time in microseconds as a floor keeps tokens increasing even after the state expired.
local token = tonumber(ARGV[5]) * 1000000 + tonumber(ARGV[6])
local last = tonumber(redis.call('HGET', KEYS[2], 'f') or '0')
if token <= last then
  token = last + 1
end
local text = string.format('%d', token)
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
redis.call('HSET', KEYS[2], 'f', text, ARGV[1], ARGV[2] .. ':' .. text)
local last_end = tonumber(redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')[2])
redis.call('PEXPIRE', KEYS[1], math.max(last_end - now, 1))
redis.call('PEXPIRE', KEYS[2], math.max(last_end - now, tonumber(ARGV[4])))
return token
