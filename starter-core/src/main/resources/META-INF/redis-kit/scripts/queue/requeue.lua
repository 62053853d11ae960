-- Takes back up to ARGV[2] deliveries whose visibility deadline passed (their consumer died, stalled or
-- overran): each goes to the head of its priority's ready list for another delivery (the priority is the letter that
-- ends its token, see claim.lua; in a queue with groups, a message of a group to the head of its group, as release.lua
-- gives one back), or, when it has had ARGV[3] deliveries, to the dead-letter queue with the reason, its meta keeping
-- the priority's letter (see dead_letter.lua). Harmless when replayed.
-- KEYS: the eight queue keys (see enqueue.lua), then the workflow keys: [9] the workflow hash, [10] the finished
-- batches, [11] to [16] delayed and ready of the normal, high and low priorities (see workflow.lua), [17] the group
-- hash (see promote.lua), whose entry goes with the message, [18] the groups' ready zset, [19] the turns and [20] the
-- sequence
-- ARGV[1] now in ms, pinned by tests; empty for the server's TIME, ARGV[2] most deliveries to take back,
-- ARGV[3] delivery limit, ARGV[4] how long dead letters are kept in ms, ARGV[5] most dead letters kept,
-- ARGV[6] wake-up channel, ARGV[7] cancel channel, ARGV[8] how long a finished batch is kept in ms, ARGV[9] '1' in a
-- queue with groups (else no group key is read)
-- A message cancelled while in flight (cancel.lua) is dead-lettered as cancelled, whatever its count.
-- Returns {requeued, dead-lettered for their delivery limit, dead-lettered as cancelled, then how many of each of the
-- six flow and batch events (see workflow.lua) the dead-lettered messages' ends caused: parents released because every
-- child finished, released by CONTINUE, dead-lettered by FAIL, batches' first failures, batches finished, batches
-- that succeeded}.
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
local ids = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now, 'LIMIT', 0, tonumber(ARGV[2]))
local limit = tonumber(ARGV[3])
-- Per priority, the ready list and the messages going back to it.
local ready = {n = KEYS[12], h = KEYS[14], l = KEYS[16]}
local back = {n = {}, h = {}, l = {}}
local backs = 0
local regrouped = 0
local dead = 0
local cancelled = 0
local events = {0, 0, 0, 0, 0, 0}
local function count(bits)
  for i = 1, 6 do
    if bits % 2 == 1 then
      events[i] = events[i] + 1
    end
    bits = math.floor(bits / 2)
  end
end
for _, id in ipairs(ids) do
  redis.call('ZREM', KEYS[3], id)
  local meta = redis.call('HGET', KEYS[5], id)
  if meta then
    local due, deliveries, token = string.match(meta, '^(%d+)|(%d+)|(.*)$')
    local letter = string.match(token, '[hl]$')
    local cleared = due .. '|' .. deliveries .. '|'
    if redis.call('HGET', KEYS[7], id) == 'cancelled' then
      redis.call('HSET', KEYS[5], id, cleared .. (letter or ''))
      redis.call('ZADD', KEYS[4], now, id)
      count(finished(id, 'f', 'cancelled'))
      cancelled = cancelled + 1
    elseif tonumber(deliveries) >= limit then
      redis.call('HSET', KEYS[5], id, cleared .. (letter or ''))
      redis.call('ZADD', KEYS[4], now, id)
      local reason = 'visibility timeout expired on delivery ' .. deliveries .. ' of ' .. limit
      redis.call('HSET', KEYS[7], id, reason)
      count(finished(id, 'f', reason))
      dead = dead + 1
    else
      redis.call('HSET', KEYS[5], id, cleared)
      local group = ARGV[9] == '1' and redis.call('HGET', KEYS[17], id)
      if group then
        local name, place = string.match(group, '^([^\n]*)\n?(%d*)$')
        into_group({KEYS[17], KEYS[18], KEYS[19], KEYS[20]}, {id, name, place})
        regrouped = regrouped + 1
      else
        local list = back[letter or 'n']
        list[#list + 1] = id
        backs = backs + 1
      end
    end
  end
end
-- The earliest deadline first at the head: LPUSH reverses, so push the latest first.
for _, letter in ipairs({'h', 'n', 'l'}) do
  local list = back[letter]
  for i = #list, 1, -1 do
    redis.call('LPUSH', ready[letter], list[i])
  end
end
if dead + cancelled > 0 then
  local old = redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', now - tonumber(ARGV[4]), 'LIMIT', 0, 100)
  local over = redis.call('ZCARD', KEYS[4]) - #old - tonumber(ARGV[5])
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
end
if backs + regrouped > 0 then
  redis.call('PUBLISH', ARGV[6], string.format('%d', now))
end
return {backs + regrouped, dead, cancelled, events[1], events[2], events[3], events[4], events[5], events[6]}
