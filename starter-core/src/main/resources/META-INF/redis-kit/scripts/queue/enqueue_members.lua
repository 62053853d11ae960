-- Places the messages of a flow or a batch as enqueue.lua places messages, each linked to its flow or batch in the
-- workflow hash, all or nothing; run as the function 'enqueue_members' inside enqueue_flow.lua and enqueue_batch.lua,
-- in their call, with the function 'earliest_due' (earliest_due.lua) before it.
-- KEYS: the caller's: the twelve queue keys (see enqueue.lua), [13] the workflow hash (see workflow.lua)
-- ARGV[1] now in ms, ARGV[2] wake-up channel, ARGV[3] the link's prefix in the workflow hash ('p:' a flow's child,
-- 'b:' a batch's member), ARGV[4] what it links to (the parent's or the batch's id), ARGV[5] '1' when the first
-- message is stored without being placed or linked (a flow's parent, which waits in no state), then per message:
-- id, payload, delay ms, due at ms (0 for none), priority ('h', 'n' or 'l'); due = max(now + delay, due at)
-- Returns {1, the ids placed} or {0, the first id the queue holds already}, having written nothing.
for i = 6, #ARGV, 5 do
  if redis.call('HEXISTS', KEYS[5], ARGV[i]) == 1 then
    return {0, ARGV[i]}
  end
end
local now = ARGV[1]
local delayed = {h = KEYS[9], n = KEYS[1], l = KEYS[11]}
local earliest = earliest_due({KEYS[9], KEYS[1], KEYS[11]}, {})
local soonest = math.huge
local placed = {}
for i = 6, #ARGV, 5 do
  local id = ARGV[i]
  local due = math.max(now + tonumber(ARGV[i + 2]), tonumber(ARGV[i + 3]))
  redis.call('HSET', KEYS[5], id, string.format('%d|0|', due))
  redis.call('HSET', KEYS[6], id, ARGV[i + 1])
  if i > 6 or ARGV[5] ~= '1' then
    placed[#placed + 1] = id
    redis.call('ZADD', delayed[ARGV[i + 4]] or KEYS[1], due, id)
    redis.call('HSET', KEYS[13], ARGV[3] .. id, ARGV[4])
    if due < soonest then
      soonest = due
    end
  end
end
if soonest < earliest then
  redis.call('PUBLISH', ARGV[2], string.format('%d', soonest))
end
return {1, placed}
