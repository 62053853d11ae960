-- Cancels a message. One that has not been delivered (delayed or ready, at any priority) is removed with all its
-- data. One in flight is marked cancelled (its dead-letter reason set to 'cancelled' while it is in flight) and
-- its id published on ARGV[5], so that the instance running it interrupts its handler; whatever settles it next
-- (ack, retry, dead-letter, release, or the visibility timeout) dead-letters it as cancelled, so a lost
-- notification changes nothing but the interrupt. A dead-lettered message is left alone. A flow's parent waiting
-- for its children is removed with the children that have not finished (those in flight marked as above). A
-- message removed here counts as failed for its flow or batch (see workflow.lua). ARGV[3] is recorded in settled
-- as in ack.lua, so that a driver replay of a cancel that took effect answers 2, not 0.
-- KEYS: the eight queue keys (see enqueue.lua), then the workflow keys: [9] the workflow hash, [10] the finished
-- batches, [11] to [16] delayed and ready of the normal, high and low priorities (see workflow.lua), [17] the group
-- hash (whose entry goes with the message) and [18] the groups' ready zset (see promote.lua): a message ready in its
-- group is removed from there
-- ARGV[1] now in ms, pinned by tests; empty for the server's TIME, ARGV[2] id, ARGV[3] request id,
-- ARGV[4] how long settled request ids are kept in ms, ARGV[5] the queue's cancel channel, ARGV[6] wake-up channel,
-- ARGV[7] how long a finished batch is kept in ms
-- Returns 1 (removed), 4 (in flight: marked), 2 (a replay of a cancel that took effect) or 0 (nothing to cancel);
-- a 1 plus 8 times what the removal did to the message's flow or batch (see workflow.lua).
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
  return workflow({KEYS[5], KEYS[6], KEYS[3], KEYS[4], KEYS[7], KEYS[9], KEYS[10], KEYS[11], KEYS[12], KEYS[13],
    KEYS[14], KEYS[15], KEYS[16]}, {now, id, event, data, ARGV[6], ARGV[5], ARGV[7]})
end
if redis.call('ZSCORE', KEYS[8], ARGV[3]) then
  return 2
end
local id = ARGV[2]
local outcome = 0
local events = 0
for _, level in ipairs({{KEYS[11], KEYS[12]}, {KEYS[13], KEYS[14]}, {KEYS[15], KEYS[16]}}) do
  if redis.call('ZREM', level[1], id) == 1 or redis.call('LREM', level[2], 1, id) == 1 then
    outcome = 1
    break
  end
end
if outcome == 0 then
  local group = redis.call('HGET', KEYS[17], id)
  if group and string.find(group, '\n', 1, true) and redis.call('ZREM', KEYS[18], group .. '\n' .. id) == 1 then
    outcome = 1
  end
end
if outcome == 1 then
  redis.call('HDEL', KEYS[17], id)
  redis.call('HDEL', KEYS[5], id)
  redis.call('HDEL', KEYS[6], id)
  events = finished(id, 'f', 'cancelled')
elseif redis.call('ZSCORE', KEYS[3], id) then
  redis.call('HSET', KEYS[7], id, 'cancelled')
  redis.call('PUBLISH', ARGV[5], id)
  outcome = 4
elseif finished(id, 'c', '') == 1 then
  outcome = 1
else
  return 0
end
remember({KEYS[8]}, {now, tonumber(ARGV[4]), {ARGV[3]}})
return outcome + 8 * events
