-- Takes permits of a semaphore for one owner when enough are free; leases of crashed holders are dropped first.
-- KEYS[1] holders: sorted set, member = owner, score = end of its lease (server ms)
-- KEYS[2] state: hash {f = last fencing token, o = total set at run time, <owner> = "<permits>:<token>"}
-- ARGV[1] owner, ARGV[2] permits, ARGV[3] lease in ms, ARGV[4] total the caller was configured with,
-- ARGV[5] ttl of the state in ms (it outlives the last lease to keep fencing tokens increasing)
-- Returns {1, fencing token, permits left free} when the owner holds the permits (a replay of the same
--         owner returns its token again and changes nothing),
--         {0, ms until the earliest lease ends (-1 when none), permits free, total} when too few are free,
--         {-1, total} when the owner asks for more permits than the total.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local ended = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now)
for _, gone in ipairs(ended) do
  redis.call('HDEL', KEYS[2], gone)
end
if #ended > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
end
local held = redis.call('HGET', KEYS[2], ARGV[1])
if held and redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  local _, token = string.match(held, '(%d+):(%d+)')
  return {1, tonumber(token), 0}
end
local total = tonumber(redis.call('HGET', KEYS[2], 'o') or ARGV[4])
local permits = tonumber(ARGV[2])
if permits > total then
  return {-1, total}
end
local used = 0
local holders = redis.call('ZRANGE', KEYS[1], 0, -1)
for _, holder in ipairs(holders) do
  local entry = redis.call('HGET', KEYS[2], holder)
  if entry then
    used = used + tonumber(string.match(entry, '(%d+):'))
  end
end
if used + permits > total then
  local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  local wait = -1
  if first[2] then
    wait = math.max(tonumber(first[2]) - now, 0)
  end
  return {0, wait, math.max(total - used, 0), total}
end
local token = grant(KEYS, {ARGV[1], ARGV[2], ARGV[3], ARGV[5], time[1], time[2]})
return {1, token, total - used - permits}
