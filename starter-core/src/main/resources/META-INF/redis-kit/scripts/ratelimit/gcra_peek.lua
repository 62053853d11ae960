-- GCRA, read only: what gcra.lua would answer for a quantity of one now, without moving the arrival time.
-- KEYS[1] theoretical arrival time (TAT) of the next request, in microseconds
-- ARGV[1] max_burst, ARGV[2] count per period, ARGV[3] period in microseconds,
-- ARGV[4] now in microseconds, pinned by tests; empty for the server's TIME
-- Returns {limit, remaining, retry-after µs for one permit (0 when one is free), reset-after µs, now µs}
local now = tonumber(ARGV[4])
if not now then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000000 + tonumber(time[2])
end
local emission = tonumber(ARGV[3]) / tonumber(ARGV[2])
local tolerance = emission * (tonumber(ARGV[1]) + 1)
local tat = tonumber(redis.call('GET', KEYS[1])) or now
local backlog = math.max(0, tat - now)
local retry_after = 0
local diff = now - (math.max(tat, now) + emission - tolerance)
if diff < 0 then
  retry_after = math.ceil(-diff)
end
local remaining = 0
if tolerance - backlog > 0 then
  remaining = math.floor((tolerance - backlog) / emission)
end
return {tonumber(ARGV[1]) + 1, remaining, retry_after, math.ceil(backlog), now}
