-- Dead-letters a delivery with a reason, whatever its delivery count. The token is kept in settled as in
-- ack.lua; the dead-letter queue is bounded by age and size as in retry.lua.
-- KEYS: the eight queue keys (see enqueue.lua), then the workflow keys: [9] the workflow hash, [10] the finished
-- batches, [11] to [16] delayed and ready of the normal, high and low priorities (see workflow.lua), [17] the group
-- hash (see promote.lua), whose entry goes with the message
-- ARGV[1] now in ms, pinned by tests; empty for the server's TIME, ARGV[2] id, ARGV[3] token, ARGV[4] reason,
-- ARGV[5] how long settled tokens are kept in ms, ARGV[6] how long dead letters are kept in ms,
-- ARGV[7] most dead letters kept, ARGV[8] wake-up channel, ARGV[9] cancel channel, ARGV[10] how long a finished
-- batch is kept in ms
-- A message cancelled while in flight (cancel.lua) keeps the reason 'cancelled', and 4 is returned.
-- Returns 1 (dead-lettered), 4 (cancelled), 2 (a replay of a settled token) or 0 (stale token); a 1 or 4 plus 8
-- times what the message's end did to its flow or batch (see workflow.lua).
local now = tonumber(ARGV[1])
if not now then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
-- A finished message's flow and batch bookkeeping (workflow.lua); nothing to do, and no call per message, in a queue
-- without flows or batches (only the enqueue scripts create the workflow hash).
local workflows = redis.call('EXISTS', KEYS[9]) == 1
local function finished(id, event, data)
  if not workflows then
    return 0
  end
  return workflow({KEYS[5], KEYS[6], KEYS[3], KEYS[4], KEYS[7], KEYS[9], KEYS[10], KEYS[11], KEYS[12], KEYS[13], KEYS[14],
    KEYS[15], KEYS[16]},
    {now, id, event, data, ARGV[8], ARGV[9], ARGV[10]})
end
local id = ARGV[2]
local meta = redis.call('HGET', KEYS[5], id)
local due, deliveries, token
if meta then
  due, deliveries, token = string.match(meta, '^(%d+)|(%d+)|(.*)$')
end
if token ~= ARGV[3] then
  -- Not held under this token (no settle leaves a token in place): a replay of one that took effect, or stale.
  return redis.call('ZSCORE', KEYS[8], ARGV[3]) and 2 or 0
end
redis.call('ZREM', KEYS[3], id)
remember({KEYS[8]}, {now, tonumber(ARGV[5]), {token}})
-- A dead letter's meta keeps its priority's letter (high or low, from the token: see claim.lua) where the token
-- was, for redrive.lua.
redis.call('HSET', KEYS[5], id, due .. '|' .. deliveries .. '|' .. (string.match(token, '[hl]$') or ''))
redis.call('ZADD', KEYS[4], now, id)
local cancelled = redis.call('HGET', KEYS[7], id) == 'cancelled'
if not cancelled then
  redis.call('HSET', KEYS[7], id, ARGV[4])
end
local events = finished(id, 'f', cancelled and 'cancelled' or ARGV[4])
local old = redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', now - tonumber(ARGV[6]), 'LIMIT', 0, 100)
local over = redis.call('ZCARD', KEYS[4]) - #old - tonumber(ARGV[7])
if over > 0 then
  for _, extra in ipairs(redis.call('ZRANGE', KEYS[4], #old, #old + math.min(over, 100) - 1)) do
    old[#old + 1] = extra
  end
end
for _, gone in ipairs(old) do
  redis.call('ZREM', KEYS[4], gone)
  redis.call('HDEL', KEYS[5], gone)
  redis.call('HDEL', KEYS[17], gone)
  redis.call('HDEL', KEYS[6], gone)
  redis.call('HDEL', KEYS[7], gone)
end
return (cancelled and 4 or 1) + 8 * events
