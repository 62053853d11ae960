-- Sliding window counter, read only: what sliding_window.lua would answer for one permit now, without counting
-- it.
-- KEYS[1] hash {w = start of the current window in µs, c = its count, p = the previous window's count}
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
local retry_after = 0
if estimate + 1 > limit then
  if current + 1 <= limit then
    retry_after = math.ceil((1 - (limit - current - 1) / previous - elapsed) * period)
  else
    retry_after = math.ceil((1 - elapsed + math.max(0, 1 - (limit - 1) / current)) * period)
  end
end
local reset_after = 0
if current > 0 then
  reset_after = window + 2 * period - now
elseif previous > 0 then
  reset_after = window + period - now
end
return {limit, math.max(0, math.floor(limit - estimate)), retry_after, reset_after, now}
