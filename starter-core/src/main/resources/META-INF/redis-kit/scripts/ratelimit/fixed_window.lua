-- Fixed window: at most limit permits per window; windows start at multiples of the period.
-- KEYS[1] hash {w = start of the current window in microseconds, c = permits counted in it}
-- ARGV[1] limit, ARGV[2] period in microseconds, ARGV[3] permits,
-- ARGV[4] now in microseconds, pinned by tests; empty for the server's TIME
-- Returns {allowed (1 or 0), limit, remaining, retry-after µs (-1 when never), reset-after µs, now µs}
local now = tonumber(ARGV[4])
if not now then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000000 + tonumber(time[2])
end
local limit = tonumber(ARGV[1])
local period = tonumber(ARGV[2])
local permits = tonumber(ARGV[3])
local state = redis.call('HMGET', KEYS[1], 'w', 'c')
local window = tonumber(state[1])
local count = 0
-- A stored window that has not ended yet stays current even when the period changed since it began.
if window and now < window + period then
  count = tonumber(state[2])
else
  window = now - (now % period)
end
local allowed, retry_after = 0, 0
if count + permits <= limit then
  allowed = 1
  count = count + permits
  redis.call('HSET', KEYS[1], 'w', string.format('%d', window), 'c', count)
  -- A TTL counts from the server's clock cut to the millisecond, up to 999 µs behind TIME: one more millisecond
  -- keeps the state until its reset, never a moment less.
  redis.call('PEXPIRE', KEYS[1], math.ceil((window + period - now) / 1000) + 1)
elseif permits > limit then
  retry_after = -1
else
  retry_after = window + period - now
end
local reset_after = 0
if count > 0 then
  reset_after = window + period - now
end
return {allowed, limit, math.max(0, limit - count), retry_after, reset_after, now}
