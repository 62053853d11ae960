-- Sliding log, read only: what sliding_log.lua would answer for one permit now, without trimming the log or
-- adding to it. Entries older than one period are left for the next acquisition to trim; they are not counted.
-- KEYS[1] sorted set of admitted permits, score = time in microseconds
-- ARGV[1] limit, ARGV[2] period in microseconds,
-- ARGV[3] now in microseconds, pinned by tests; empty for the server's TIME
-- Returns {limit, remaining, retry-after µs for one permit (0 when one is free), reset-after µs, now µs}
local now = tonumber(ARGV[3])
if not now then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000000 + tonumber(time[2])
end
local limit = tonumber(ARGV[1])
local period = tonumber(ARGV[2])
-- The acquisition removes scores up to now - period inclusive: the window holds those above it.
local from = '(' .. string.format('%d', now - period)
local count = redis.call('ZCOUNT', KEYS[1], from, '+inf')
local retry_after, reset_after = 0, 0
if count + 1 > limit then
  -- Room for one permit comes when the entry at this rank of the window, oldest first, leaves it.
  local entry = redis.call('ZRANGEBYSCORE', KEYS[1], from, '+inf', 'WITHSCORES', 'LIMIT', count - limit, 1)
  retry_after = tonumber(entry[2]) + period - now
end
if count > 0 then
  local newest = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
  reset_after = math.max(1, tonumber(newest[2]) + period - now)
end
return {limit, math.max(0, limit - count), retry_after, reset_after, now}
