-- A first read hold: many owners may read at once, never beside a writer, and a waiting writer keeps new
-- readers out (writer preference), so that a stream of readers cannot starve it.
-- KEYS[1] hash {w = writer, wc = its hold count, wf = its fencing token, wd = its lease end (server ms),
--               rc:<owner> = a reader's hold count, rf:<owner> = its fencing token}
-- KEYS[2] readers: zset of reader -> lease end (server ms)
-- KEYS[3] waiting writers: zset of writer -> end of its place (server ms), renewed by each of its attempts
-- KEYS[4] last fencing token handed out for this name
-- ARGV[1] owner, ARGV[2] lease in ms, ARGV[3] ttl of the fencing key in ms
-- Returns {1, fencing token, 1} when the owner reads (a read it already had is adopted as one hold),
--         {0, ms until the writer's lease ends, or -1 when readers wait for a waiting writer}.
-- Holders whose lease ended are dropped first; every key expires with the last lease it carries.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local wd = tonumber(redis.call('HGET', KEYS[1], 'wd') or '0')
if wd > 0 and wd <= now then
  redis.call('HDEL', KEYS[1], 'w', 'wc', 'wf', 'wd')
end
for _, gone in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now)) do
  redis.call('HDEL', KEYS[1], 'rc:' .. gone, 'rf:' .. gone)
end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)

local owner = ARGV[1]
local until_ = now + tonumber(ARGV[2])
local function keep()
  local last = tonumber(redis.call('HGET', KEYS[1], 'wd') or '0')
  local top = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
  if top[2] and tonumber(top[2]) > last then
    last = tonumber(top[2])
  end
  redis.call('PEXPIRE', KEYS[1], last - now)
  redis.call('PEXPIRE', KEYS[2], last - now)
end

if redis.call('HGET', KEYS[1], 'rc:' .. owner) then
  redis.call('HSET', KEYS[1], 'rc:' .. owner, '1')
  redis.call('ZADD', KEYS[2], until_, owner)
  keep()
  return {1, tonumber(redis.call('HGET', KEYS[1], 'rf:' .. owner)), 1}
end
local writer = redis.call('HGET', KEYS[1], 'w')
if writer and writer ~= owner then
  return {0, tonumber(redis.call('HGET', KEYS[1], 'wd')) - now}
end
-- A writer reading its own data (the first step of a downgrade) passes waiting writers.
if not writer and redis.call('ZCARD', KEYS[3]) > 0 then
  return {0, -1}
end
local token = tonumber(t[1]) * 1000000 + tonumber(t[2])
local last = tonumber(redis.call('GET', KEYS[4]) or '0')
if token <= last then
  token = last + 1
end
local text = string.format('%d', token)
redis.call('SET', KEYS[4], text, 'PX', ARGV[3])
redis.call('HSET', KEYS[1], 'rc:' .. owner, '1', 'rf:' .. owner, text)
redis.call('ZADD', KEYS[2], until_, owner)
keep()
return {1, token, 1}
