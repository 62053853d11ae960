-- Token bucket, read only: what token_bucket.lua would answer for one permit now, without taking it.
-- KEYS[1] hash {t = tokens after the last write, ts = time of the last write in microseconds}
-- ARGV[1] capacity, ARGV[2] rate per period, ARGV[3] period in microseconds,
-- ARGV[4] now in microseconds, pinned by tests; empty for the server's TIME
-- Returns {capacity, remaining, retry-after µs for one permit (0 when one is free), reset-after µs, now µs}
local now = tonumber(ARGV[4])
if not now then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000000 + tonumber(time[2])
end
local capacity = tonumber(ARGV[1])
local per_micro = tonumber(ARGV[2]) / tonumber(ARGV[3])
local state = redis.call('HMGET', KEYS[1], 't', 'ts')
local tokens = capacity
local last = tonumber(state[2])
if last then
  tokens = math.min(capacity, tonumber(state[1]) + math.max(0, now - last) * per_micro)
end
local retry_after = 0
if tokens < 1 then
  retry_after = math.ceil((1 - tokens) / per_micro)
end
return {capacity, math.floor(tokens), retry_after, math.ceil((capacity - tokens) / per_micro), now}
