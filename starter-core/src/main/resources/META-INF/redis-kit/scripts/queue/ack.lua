-- Acknowledges a delivery: the message and all its data are removed. Only the delivery's token is kept, in
-- settled, for ARGV[4] ms, so that a driver replay of this ack is recognised.
-- KEYS: the eight queue keys (see enqueue.lua), then the workflow keys: [9] the workflow hash, [10] the finished
-- batches, [11] to [16] delayed and ready of the normal, high and low priorities (see workflow.lua), [17] the group
-- hash (see promote.lua), whose entry goes with the message
-- ARGV[1] now in ms, pinned by tests; empty for the server's TIME, ARGV[2] id, ARGV[3] token,
-- ARGV[4] how long settled tokens are kept, in ms, ARGV[5] the handler's result for a flow's parent ('' for none),
-- ARGV[6] wake-up channel, ARGV[7] cancel channel, ARGV[8] how long a finished batch is kept in ms
-- Returns 1 (acknowledged), 2 (this token was settled before: a replay) or 0 (the token is stale: the
-- visibility timeout passed and the message went back to the queue or to another consumer), or 4: the message
-- was cancelled while in flight (cancel.lua) and is dead-lettered as cancelled instead (the dead-letter bounds
-- apply at the next dead-letter); plus 8 times what its end did to its flow or batch (see workflow.lua).
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
    {now, id, event, data, ARGV[6], ARGV[7], ARGV[8]})
end
local meta = redis.call('HGET', KEYS[5], ARGV[2])
if not meta or string.match(meta, '^%d+|%d+|(.*)$') ~= ARGV[3] then
  -- Not held under this token (no settle leaves a token in place): a replay of one that took effect, or stale.
  return redis.call('ZSCORE', KEYS[8], ARGV[3]) and 2 or 0
end
redis.call('ZREM', KEYS[3], ARGV[2])
local cancelled = redis.call('HGET', KEYS[7], ARGV[2]) == 'cancelled'
local events
if cancelled then
  redis.call('HSET', KEYS[5], ARGV[2], string.match(meta, '^(%d+|%d+|)') .. (string.match(meta, '[hl]$') or ''))
  redis.call('ZADD', KEYS[4], now, ARGV[2])
  events = finished(ARGV[2], 'f', 'cancelled')
else
  redis.call('HDEL', KEYS[5], ARGV[2])
  redis.call('HDEL', KEYS[17], ARGV[2])
  redis.call('HDEL', KEYS[6], ARGV[2])
  events = finished(ARGV[2], 's', ARGV[5])
end
remember({KEYS[8]}, {now, tonumber(ARGV[4]), {ARGV[3]}})
return (cancelled and 4 or 1) + 8 * events
