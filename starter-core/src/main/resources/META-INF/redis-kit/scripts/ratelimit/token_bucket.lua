-- Token bucket: holds up to capacity tokens, refilled continuously at rate tokens per period.
-- KEYS[1] hash {t = tokens after the last write, ts = time of the last write in microseconds}
-- ARGV[1] capacity, ARGV[2] rate per period, ARGV[3] period in microseconds, ARGV[4] permits,
-- ARGV[5] now in microseconds, pinned by tests; empty for the server's TIME
-- Returns {allowed (1 or 0), capacity, remaining, retry-after µs (-1 when never), reset-after µs, now µs}
local now = tonumber(ARGV[5])
if not now then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000000 + tonumber(time[2])
end
local capacity = tonumber(ARGV[1])
local per_micro = tonumber(ARGV[2]) / tonumber(ARGV[3])
local permits = tonumber(ARGV[4])
local state = redis.call('HMGET', KEYS[1], 't', 'ts')
local tokens = capacity
local last = tonumber(state[2])
if last then
  -- A server clock that stepped back refills nothing rather than going negative.
  tokens = math.min(capacity, tonumber(state[1]) + math.max(0, now - last) * per_micro)
  now = math.max(now, last)
end
local allowed, retry_after = 0, 0
if tokens >= permits then
  allowed = 1
  tokens = tokens - permits
elseif permits > capacity then
  retry_after = -1
else
  retry_after = math.ceil((permits - tokens) / per_micro)
end
local reset_after = math.ceil((capacity - tokens) / per_micro)
if allowed == 1 then
  redis.call('HSET', KEYS[1], 't', string.format('%.17g', tokens), 'ts', string.format('%d', now))
end
if reset_after > 0 and (allowed == 1 or last) then
  -- The key lives until the bucket is full again, re-armed on every call so a slower rate keeps it.
  -- A TTL counts from the server's clock cut to the millisecond, up to 999 µs behind TIME: one more millisecond
  -- keeps the state until its reset, never a moment less.
  redis.call('PEXPIRE', KEYS[1], math.ceil(reset_after / 1000) + 1)
end
return {allowed, capacity, math.floor(tokens), retry_after, reset_after, now}
