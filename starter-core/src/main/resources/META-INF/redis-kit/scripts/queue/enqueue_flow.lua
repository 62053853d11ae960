-- Enqueues a flow: a parent that waits, in no state list, until its children finish (see workflow.lua), and its
-- children, placed as enqueue.lua places messages. All or nothing: when an id is in the queue already nothing is
-- added (a driver replay finds its own parent and adds nothing).
-- KEYS: the twelve queue keys (see enqueue.lua), [13] the workflow hash (see workflow.lua)
-- ARGV[1] now in ms, pinned by tests; empty for the server's TIME, ARGV[2] wake-up channel, ARGV[3] the policy on
-- a child's failure ('F', 'I' or 'C'), then the parent and each child: id, payload, delay ms, due at ms (0 for
-- none), priority ('h', 'n' or 'l'); due = max(now + delay, due at)
-- Returns {1} (added) or {0, the first id the queue holds already}.
local now = tonumber(ARGV[1])
if not now then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
for i = 4, #ARGV, 5 do
  if redis.call('HEXISTS', KEYS[5], ARGV[i]) == 1 then
    return {0, ARGV[i]}
  end
end
local delayed = {h = KEYS[9], n = KEYS[1], l = KEYS[11]}
local earliest = math.huge
for _, key in pairs(delayed) do
  local first = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  if first[2] and tonumber(first[2]) < earliest then
    earliest = tonumber(first[2])
  end
end
local soonest = math.huge
local parent = ARGV[4]
local children = {}
for i = 4, #ARGV, 5 do
  local id = ARGV[i]
  local due = math.max(now + tonumber(ARGV[i + 2]), tonumber(ARGV[i + 3]))
  redis.call('HSET', KEYS[5], id, string.format('%d|0|', due))
  redis.call('HSET', KEYS[6], id, ARGV[i + 1])
  if i > 4 then
    children[#children + 1] = id
    redis.call('ZADD', delayed[ARGV[i + 4]] or KEYS[1], due, id)
    redis.call('HSET', KEYS[13], 'p:' .. id, parent)
    if due < soonest then
      soonest = due
    end
  end
end
redis.call('HSET', KEYS[13], 'f:' .. parent, cjson.encode({pending = #children, policy = ARGV[3], state = 'w',
  priority = ARGV[8], children = children}))
if soonest < earliest then
  redis.call('PUBLISH', ARGV[2], string.format('%d', soonest))
end
return {1}
