-- Gives a delivery back unprocessed (a consumer stopping): the message goes to the head of ready at once and
-- the delivery is not counted; in a queue with groups a message of a group goes back to the head of its group instead
-- (into_group.lua, with the place it had), so that it waits for its group's turn and limits as it did before its claim.
-- The token is kept in settled as in ack.lua.
-- KEYS: the eight queue keys (see enqueue.lua), then the workflow keys: [9] the workflow hash, [10] the finished
-- batches, [11] to [16] delayed and ready of the normal, high and low priorities (see workflow.lua), [17] the group
-- hash, [18] the groups' ready zset, [19] the turns and [20] the sequence (see promote.lua)
-- ARGV[1] now in ms, pinned by tests; empty for the server's TIME, ARGV[2] id, ARGV[3] token,
-- ARGV[4] how long settled tokens are kept in ms, ARGV[5] wake-up channel, ARGV[6] cancel channel, ARGV[7] how
-- long a finished batch is kept in ms, ARGV[8] '1' in a queue with groups (else no group key is read)
-- A message cancelled while in flight (cancel.lua) is not given back: it is dead-lettered as cancelled, and 4
-- returned.
-- Returns 1 (released), 4 (cancelled, plus 8 times what its end did to its flow or batch: see workflow.lua), 2 (a
-- replay of a settled token) or 0 (stale token).
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
    {now, id, event, data, ARGV[5], ARGV[6], ARGV[7]})
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
remember({KEYS[8]}, {now, tonumber(ARGV[4]), {token}})
if redis.call('HGET', KEYS[7], id) == 'cancelled' then
  redis.call('HSET', KEYS[5], id, due .. '|' .. deliveries .. '|' .. (string.match(token, '[hl]$') or ''))
  redis.call('ZADD', KEYS[4], now, id)
  return 4 + 8 * finished(id, 'f', 'cancelled')
end
redis.call('HSET', KEYS[5], id, due .. '|' .. math.max(0, tonumber(deliveries) - 1) .. '|')
local group = ARGV[8] == '1' and redis.call('HGET', KEYS[17], id)
if group then
  local name, place = string.match(group, '^([^\n]*)\n?(%d*)$')
  into_group({KEYS[17], KEYS[18], KEYS[19], KEYS[20]}, {id, name, place})
else
  redis.call('LPUSH', KEYS[2], id)
end
redis.call('PUBLISH', ARGV[5], string.format('%d', now))
return 1
