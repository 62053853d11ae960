-- Acknowledges several deliveries in one call, each exactly as ack.lua does one: the message and its data are
-- removed and its token kept in settled for ARGV[2] ms, so that a driver replay is recognised.
-- KEYS: the eight queue keys (see enqueue.lua), then the workflow keys: [9] the workflow hash, [10] the finished
-- batches, [11] to [16] delayed and ready of the normal, high and low priorities (see workflow.lua), [17] the group
-- hash (see promote.lua), whose entry goes with the message
-- ARGV[1] now in ms, pinned by tests; empty for the server's TIME, ARGV[2] how long settled tokens are kept, in
-- ms, ARGV[3] wake-up channel, ARGV[4] cancel channel, ARGV[5] how long a finished batch is kept in ms, then
-- triples of id, token and the handler's result for a flow's parent ('' for none)
-- Returns per triple 1 (acknowledged), 2 (this token was settled before: a replay), 0 (the token is stale) or 4
-- (cancelled while in flight: dead-lettered as cancelled instead, as in ack.lua), plus 8 times what its end did to
-- its flow or batch (see workflow.lua).
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
-- Tables grow by explicit places: '#' searches a table for its end each time.
local ids, tokens = {}, {}
local count = 0
for i = 6, #ARGV, 3 do
  count = count + 1
  ids[count] = ARGV[i]
  tokens[count] = ARGV[i + 1]
end
if count == 0 then
  return {}
end
-- Read in two calls for the whole batch, written in five: a call per message costs more than its command. A
-- queue with flows or batches reads and writes per message instead, in order, as the bookkeeping of one message
-- may settle or cancel another of the same batch. Settled tokens are read only for the deliveries whose message is
-- not held under their token (no settle leaves a token in place), in one call after the others.
-- The reasons are read only when their hash exists (a cancel or a dead letter leaves one), and the group hash is
-- written only when it exists (a queue with groups): an EXISTS costs less than a batch's ids made into arguments.
local metas, reasons
if not workflows then
  metas = redis.call('HMGET', KEYS[5], unpack(ids))
  if redis.call('EXISTS', KEYS[7]) == 1 then
    reasons = redis.call('HMGET', KEYS[7], unpack(ids))
  else
    reasons = {}
  end
end
local seen, acked = {}, {}
local removed, settled, unheld = {}, {}, {}
local removed_count, settled_count = 0, 0
local reply = {}
for n = 1, count do
  local id, token = ids[n], tokens[n]
  if seen[token] then
    reply[n] = 2
  else
    local meta
    if metas then
      meta = metas[n]
    else
      meta = redis.call('HGET', KEYS[5], id)
    end
    if not meta or string.match(meta, '^%d+|%d+|(.*)$') ~= token or acked[id] then
      reply[n] = 0
      unheld[#unheld + 1] = n
    else
      seen[token] = true
      acked[id] = true
      settled_count = settled_count + 1
      settled[settled_count] = token
      local reason
      if reasons then
        reason = reasons[n]
      else
        reason = redis.call('HGET', KEYS[7], id)
      end
      if reason == 'cancelled' then
        redis.call('ZREM', KEYS[3], id)
        redis.call('HSET', KEYS[5], id, string.match(meta, '^(%d+|%d+|)') .. (string.match(meta, '[hl]$') or ''))
        redis.call('ZADD', KEYS[4], now, id)
        reply[n] = 4 + 8 * finished(id, 'f', 'cancelled')
      elseif workflows then
        redis.call('ZREM', KEYS[3], id)
        redis.call('HDEL', KEYS[5], id)
        redis.call('HDEL', KEYS[17], id)
        redis.call('HDEL', KEYS[6], id)
        reply[n] = 1 + 8 * finished(id, 's', ARGV[5 + n * 3])
      else
        removed_count = removed_count + 1
        removed[removed_count] = id
        reply[n] = 1
      end
    end
  end
end
if removed_count > 0 then
  redis.call('ZREM', KEYS[3], unpack(removed))
  redis.call('HDEL', KEYS[5], unpack(removed))
  if redis.call('EXISTS', KEYS[17]) == 1 then
    redis.call('HDEL', KEYS[17], unpack(removed))
  end
  redis.call('HDEL', KEYS[6], unpack(removed))
end
if #unheld > 0 then
  -- Read before this call's own tokens are recorded: settled by an earlier call, so a replay.
  local unheld_tokens = {}
  for i, n in ipairs(unheld) do
    unheld_tokens[i] = tokens[n]
  end
  local settled_at = redis.call('ZMSCORE', KEYS[8], unpack(unheld_tokens))
  for i, n in ipairs(unheld) do
    if settled_at[i] then
      reply[n] = 2
    end
  end
end
if settled_count > 0 then
  remember({KEYS[8]}, {now, keep, settled})
end
return reply
