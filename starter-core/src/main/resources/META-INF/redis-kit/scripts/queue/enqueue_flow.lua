-- Enqueues a flow: a parent that waits, in no state list, until its children finish (see workflow.lua), and its
-- children, placed as enqueue.lua places messages. All or nothing: when an id is in the queue already nothing is
-- added (a driver replay finds its own parent and adds nothing).
-- KEYS: the twelve queue keys (see enqueue.lua), [13] the workflow hash (see workflow.lua)
-- ARGV[1] now in ms, pinned by tests; empty for the server's TIME, ARGV[2] wake-up channel, ARGV[3] the policy on
-- a child's failure ('F', 'I' or 'C'), then the parent and each child: id, payload, delay ms, due at ms (0 for
-- none), priority ('h', 'n' or 'l'); due = max(now + delay, due at)
-- The messages are placed by the function 'enqueue_members' (enqueue_members.lua), shared with enqueue_batch.lua;
-- the flow counts in the workflow hash's 'n:waiting' (flows whose parent waits) until its parent is released or ends.
-- Returns {1} (added) or {0, the first id the queue holds already}.
local now = tonumber(ARGV[1])
if not now then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
local parent = ARGV[4]
local members = {now, ARGV[2], 'p:', parent, '1'}
for i = 4, #ARGV do
  members[#members + 1] = ARGV[i]
end
local placed = enqueue_members(KEYS, members)
if placed[1] == 0 then
  return placed
end
local children = placed[2]
redis.call('HINCRBY', KEYS[13], 'n:waiting', 1)
redis.call('HSET', KEYS[13], 'f:' .. parent, cjson.encode({pending = #children, policy = ARGV[3], state = 'w',
  priority = ARGV[8], children = children}))
return {1}
