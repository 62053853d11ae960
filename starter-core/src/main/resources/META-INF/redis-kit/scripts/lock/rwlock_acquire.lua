-- A first hold of one side of a read-write lock; ARGV[4] says which: 'read' or 'write'. The two sides share the
-- clean-up, the key expiry and the fencing token; only the rule for who may hold differs.
-- Read: many owners may read at once, never beside another owner's write, and a waiting writer keeps new readers
-- out (writer preference), so that a stream of readers cannot starve it; a writer reading its own data (the first
-- step of a downgrade) passes waiting writers.
-- Write: only when nobody else reads or writes. An owner that cannot write yet takes a place among the waiting
-- writers, which keeps new readers out until it writes, gives up, or stops renewing its place.
-- KEYS[1] hash {w = writer, wc = its hold count, wf = its fencing token, wd = its lease end (server ms),
--               rc:<owner> = a reader's hold count, rf:<owner> = its fencing token}
-- KEYS[2] readers: zset of reader -> lease end (server ms)
-- KEYS[3] waiting writers: zset of writer -> end of its place (server ms), renewed by each of its attempts
-- KEYS[4] last fencing token handed out for this name
-- ARGV[1] owner, ARGV[2] lease in ms, ARGV[3] ttl of the fencing key in ms, ARGV[4] 'read' or 'write',
-- ARGV[5] (write) how long a place among the waiting writers lasts unless this owner attempts again, in ms
-- Returns {1, fencing token, 1} when the owner holds that side (a hold of it the owner already had is adopted as
--         one hold), {0, ms until the writer's lease ends, or -1 when readers wait for a waiting writer or a
--         writer waits for readers}.
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
local read = ARGV[4] == 'read'
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
if read then
  if redis.call('HGET', KEYS[1], 'rc:' .. owner) then
    redis.call('HSET', KEYS[1], 'rc:' .. owner, '1')
    redis.call('ZADD', KEYS[2], until_, owner)
    keep()
    return {1, tonumber(redis.call('HGET', KEYS[1], 'rf:' .. owner)), 1}
  end
  if writer and writer ~= owner then
    return {0, tonumber(redis.call('HGET', KEYS[1], 'wd')) - now}
  end
  if not writer and redis.call('ZCARD', KEYS[3]) > 0 then
    return {0, -1}
  end
else
  if writer == owner then
    redis.call('HSET', KEYS[1], 'wc', '1', 'wd', until_)
    redis.call('ZREM', KEYS[3], owner)
    keep()
    return {1, tonumber(redis.call('HGET', KEYS[1], 'wf')), 1}
  end
  if writer or redis.call('ZCARD', KEYS[2]) > 0 then
    redis.call('ZADD', KEYS[3], now + tonumber(ARGV[5]), owner)
    local top = redis.call('ZRANGE', KEYS[3], -1, -1, 'WITHSCORES')
    redis.call('PEXPIRE', KEYS[3], tonumber(top[2]) - now)
    if writer then
      return {0, tonumber(redis.call('HGET', KEYS[1], 'wd')) - now}
    end
    return {0, -1}
  end
end

local token = tonumber(t[1]) * 1000000 + tonumber(t[2])
local last = tonumber(redis.call('GET', KEYS[4]) or '0')
if token <= last then
  token = last + 1
end
local text = string.format('%d', token)
redis.call('SET', KEYS[4], text, 'PX', ARGV[3])
if read then
  redis.call('HSET', KEYS[1], 'rc:' .. owner, '1', 'rf:' .. owner, text)
  redis.call('ZADD', KEYS[2], until_, owner)
else
  redis.call('HSET', KEYS[1], 'w', owner, 'wc', '1', 'wf', text, 'wd', until_)
  redis.call('ZREM', KEYS[3], owner)
end
keep()
return {1, token, 1}
