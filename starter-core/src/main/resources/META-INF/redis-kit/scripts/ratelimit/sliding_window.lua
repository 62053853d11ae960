-- Sliding window counter: the previous window's count, weighted by how much of it the sliding window still
-- covers, plus the current window's count must stay within the limit. O(1) memory, approximate: it assumes
-- the previous window's permits were spread evenly.
-- KEYS[1] hash {w = start of the current window in µs, c = its count, p = the previous window's count}
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
local state = redis.call('HMGET', KEYS[1], 'w', 'c', 'p')
local window = tonumber(state[1])
local current, previous = 0, 0
if window and now < window + period then
  current, previous = tonumber(state[2]), tonumber(state[3])
elseif window and now < window + 2 * period then
  window, previous = window + period, tonumber(state[2])
else
  window = now - (now % period)
end
local elapsed = math.max(0, now - window) / period
local estimate = previous * (1 - elapsed) + current
local allowed, retry_after = 0, 0
if estimate + permits <= limit then
  allowed = 1
  current = current + permits
  estimate = estimate + permits
elseif permits > limit then
  retry_after = -1
elseif current + permits <= limit then
  -- Room comes while the previous window's weight fades within this window.
  retry_after = math.ceil((1 - (limit - current - permits) / previous - elapsed) * period)
else
  -- Room comes in the next window, once this window's weight has faded enough.
  retry_after = math.ceil((1 - elapsed + math.max(0, 1 - (limit - permits) / current)) * period)
end
local reset_after = 0
if current > 0 then
  reset_after = window + 2 * period - now
elseif previous > 0 then
  reset_after = window + period - now
end
if allowed == 1 then
  redis.call('HSET', KEYS[1], 'w', string.format('%d', window), 'c', current, 'p', previous)
end
if reset_after > 0 and (allowed == 1 or state[1]) then
  -- A TTL counts from the server's clock cut to the millisecond, up to 999 µs behind TIME: one more millisecond
  -- keeps the state until its reset, never a moment less.
  redis.call('PEXPIRE', KEYS[1], math.ceil(reset_after / 1000) + 1)
end
return {allowed, limit, math.max(0, math.floor(limit - estimate)), retry_after, reset_after, now}
