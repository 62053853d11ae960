-- A first write hold: only when nobody else reads or writes. An owner that cannot write yet takes a place among
-- the waiting writers, which keeps new readers out until it writes, gives up, or stops renewing its place.
-- KEYS[1] hash, KEYS[2] readers, KEYS[3] waiting writers, KEYS[4] last fencing token (see rwlock_read_acquire.lua)
-- ARGV[1] owner, ARGV[2] lease in ms, ARGV[3] ttl of the fencing key in ms, ARGV[4] how long a place among the
-- waiting writers lasts unless this owner attempts again, in ms
-- Returns {1, fencing token, 1} when the owner writes (a write it already had is adopted as one hold),
--         {0, ms until the writer's lease ends, or -1 while readers read}.
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

local writer = redis.call('HGET', KEYS[1], 'w')
if writer == owner then
  redis.call('HSET', KEYS[1], 'wc', '1', 'wd', until_)
  redis.call('ZREM', KEYS[3], owner)
  keep()
  return {1, tonumber(redis.call('HGET', KEYS[1], 'wf')), 1}
end
if writer or redis.call('ZCARD', KEYS[2]) > 0 then
  local place = now + tonumber(ARGV[4])
  redis.call('ZADD', KEYS[3], place, owner)
  local top = redis.call('ZRANGE', KEYS[3], -1, -1, 'WITHSCORES')
  redis.call('PEXPIRE', KEYS[3], tonumber(top[2]) - now)
  if writer then
    return {0, tonumber(redis.call('HGET', KEYS[1], 'wd')) - now}
  end
  return {0, -1}
end
local token = tonumber(t[1]) * 1000000 + tonumber(t[2])
local last = tonumber(redis.call('GET', KEYS[4]) or '0')
if token <= last then
  token = last + 1
end
local text = string.format('%d', token)
redis.call('SET', KEYS[4], text, 'PX', ARGV[3])
redis.call('HSET', KEYS[1], 'w', owner, 'wc', '1', 'wf', text, 'wd', until_)
redis.call('ZREM', KEYS[3], owner)
keep()
return {1, token, 1}
