-- GCRA with the meaning of redis-cell's CL.THROTTLE key max_burst count period quantity.
-- KEYS[1] theoretical arrival time (TAT) of the next request, in microseconds
-- ARGV[1] max_burst, ARGV[2] count per period, ARGV[3] period in microseconds, ARGV[4] quantity,
-- ARGV[5] now in microseconds, pinned by tests; empty for the server's TIME
-- Returns {limited (0 or 1), limit, remaining, retry-after µs (-1 when allowed or never), reset-after µs, now µs}
local now = tonumber(ARGV[5])
if not now then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000000 + tonumber(time[2])
end
local emission = tonumber(ARGV[3]) / tonumber(ARGV[2])
local tolerance = emission * (tonumber(ARGV[1]) + 1)
local increment = emission * tonumber(ARGV[4])
local tat = tonumber(redis.call('GET', KEYS[1])) or now
local new_tat = math.max(tat, now) + increment
local diff = now - (new_tat - tolerance)
local limited, retry_after, ttl = 0, -1, 0
if diff < 0 then
  limited = 1
  if increment <= tolerance then
    retry_after = math.ceil(-diff)
  end
  ttl = math.max(0, tat - now)
else
  ttl = new_tat - now
  -- A TTL counts from the server's clock cut to the millisecond, up to 999 µs behind TIME: one more millisecond
  -- keeps the state until its reset, never a moment less.
  redis.call('SET', KEYS[1], string.format('%.17g', new_tat), 'PX', math.ceil(ttl / 1000) + 1)
end
local remaining = 0
local next = tolerance - ttl
if next > 0 then
  remaining = math.floor(next / emission)
end
return {limited, tonumber(ARGV[1]) + 1, remaining, retry_after, math.ceil(ttl), now}
