-- Sliding log: one sorted-set member per admitted permit, scored by its time; exact - at most limit permits
-- in any window of one period - with memory proportional to the limit.
-- KEYS[1] sorted set of admitted permits, score = time in microseconds
-- ARGV[1] limit, ARGV[2] period in microseconds, ARGV[3] permits, ARGV[4] member prefix unique to this call,
-- ARGV[5] now in microseconds, pinned by tests; empty for the server's TIME
-- Returns {allowed (1 or 0), limit, remaining, retry-after µs (-1 when never), reset-after µs, now µs}
local now = tonumber(ARGV[5])
if not now then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000000 + tonumber(time[2])
end
local limit = tonumber(ARGV[1])
local period = tonumber(ARGV[2])
local permits = tonumber(ARGV[3])
-- Trimming by score runs in Redis, not in Lua: no table of members is ever unpacked, whatever the window holds.
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - period)
local count = redis.call('ZCARD', KEYS[1])
local allowed, retry_after = 0, 0
if count + permits <= limit then
  allowed = 1
  -- Members are unique per call (ARGV[4]), so calls in the same microsecond never collapse into one entry,
  -- and a replayed call re-adds its own members instead of counting twice.
  local batch = {}
  for i = 1, permits do
    batch[#batch + 1] = now
    batch[#batch + 1] = ARGV[4] .. i
    if #batch == 200 or i == permits then
      redis.call('ZADD', KEYS[1], unpack(batch))
      batch = {}
    end
  end
  count = count + permits
elseif permits > limit then
  retry_after = -1
else
  -- Room for these permits comes when the entry at this rank, counted from the oldest, leaves the window.
  local rank = count + permits - limit - 1
  local entry = redis.call('ZRANGE', KEYS[1], rank, rank, 'WITHSCORES')
  retry_after = tonumber(entry[2]) + period - now
end
local reset_after = 0
if count > 0 then
  local newest = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
  reset_after = math.max(1, tonumber(newest[2]) + period - now)
  -- A TTL counts from the server's clock cut to the millisecond, up to 999 µs behind TIME: one more millisecond
  -- keeps the state until its reset, never a moment less.
  redis.call('PEXPIRE', KEYS[1], math.ceil(reset_after / 1000) + 1)
end
return {allowed, limit, math.max(0, limit - count), retry_after, reset_after, now}
