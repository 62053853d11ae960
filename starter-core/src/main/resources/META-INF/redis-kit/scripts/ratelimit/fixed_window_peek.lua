-- Fixed window, read only: what fixed_window.lua would answer for one permit now, without counting it.
-- KEYS[1] hash {w = start of the current window in microseconds, c = permits counted in it}
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
local state = redis.call('HMGET', KEYS[1], 'w', 'c')
local window = tonumber(state[1])
local count = 0
if window and now < window + period then
  count = tonumber(state[2])
else
  window = now - (now % period)
end
local retry_after, reset_after = 0, 0
if count + 1 > limit then
  retry_after = window + period - now
end
if count > 0 then
  reset_after = window + period - now
end
return {limit, math.max(0, limit - count), retry_after, reset_after, now}
