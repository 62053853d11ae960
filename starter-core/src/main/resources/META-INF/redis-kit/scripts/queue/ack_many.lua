-- Acknowledges several deliveries in one call, each exactly as ack.lua does one: the message and its data are
-- removed and its token kept in settled for ARGV[2] ms, so that a driver replay is recognised.
-- KEYS: the eight queue keys (see enqueue.lua), then the workflow keys: [9] the workflow hash, [10] the finished
-- batches, [11] to [16] delayed and ready of the normal, high and low priorities (see workflow.lua), [17] the group
-- hash (see promote.lua), whose entry goes with the message
-- ARGV[1] now in ms, pinned by tests; empty for the server's TIME, ARGV[2] how long settled tokens are kept, in
-- ms, ARGV[3] wake-up channel, ARGV[4] cancel channel, ARGV[5] how long a finished batch is kept in ms, then
-- triples of id, token and the handler's result for a flow's parent ('' for none)
-- Returns per triple 1 (acknowledged), 2 (this token was settled before: a replay), 0 (the token is stale) or 4
-- (cancelled while in flight: dead-lettered as cancelled instead, as in ack.lua).
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
    {now, id, event, data, ARGV[3], ARGV[4], ARGV[5]})
end
local keep = tonumber(ARGV[2])
local reply = {}
local acked = 0
for i = 6, #ARGV, 3 do
  local id, token = ARGV[i], ARGV[i + 1]
  if redis.call('ZSCORE', KEYS[8], token) then
    reply[#reply + 1] = 2
  else
    local meta = redis.call('HGET', KEYS[5], id)
    if not meta or string.match(meta, '^%d+|%d+|(.*)$') ~= token then
      reply[#reply + 1] = 0
    else
      redis.call('ZREM', KEYS[3], id)
      redis.call('ZADD', KEYS[8], now, token)
      acked = acked + 1
      if redis.call('HGET', KEYS[7], id) == 'cancelled' then
        redis.call('HSET', KEYS[5], id, string.match(meta, '^(%d+|%d+|)'))
        redis.call('ZADD', KEYS[4], now, id)
        finished(id, 'f', 'cancelled')
        reply[#reply + 1] = 4
      else
        redis.call('HDEL', KEYS[5], id)
        redis.call('HDEL', KEYS[17], id)
        redis.call('HDEL', KEYS[6], id)
        finished(id, 's', ARGV[i + 2])
        reply[#reply + 1] = 1
      end
    end
  end
end
if acked > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[8], '-inf', now - keep)
  redis.call('PEXPIRE', KEYS[8], keep)
end
return reply
