-- Enqueues a batch: its members, placed as enqueue.lua places messages, each linked to the batch, with the
-- batch's record and its callbacks, which the last member to finish enqueues (see workflow.lua). All or nothing:
-- when the batch exists or a member's id is in the queue already nothing is added (a driver replay finds its own
-- batch and adds nothing).
-- KEYS: the twelve queue keys (see enqueue.lua), [13] the workflow hash (see workflow.lua)
-- ARGV[1] now in ms, pinned by tests; empty for the server's TIME, ARGV[2] wake-up channel, ARGV[3] batch id,
-- ARGV[4] to ARGV[6] the callbacks on death, complete and success: the priority letter and the stored payload,
-- or '' for none; then per member: id, payload, delay ms, due at ms (0 for none), priority ('h', 'n' or 'l')
-- The members are placed by the function 'enqueue_members' (enqueue_members.lua), shared with enqueue_flow.lua;
-- the batch counts in the workflow hash's 'n:batches' until it finishes.
-- Returns {1} (added), {0, ''} (the batch exists) or {0, the first member id the queue holds already}.
local now = tonumber(ARGV[1])
if not now then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
local batch = ARGV[3]
if redis.call('HEXISTS', KEYS[13], 'B:' .. batch) == 1 then
  return {0, ''}
end
local members = {now, ARGV[2], 'b:', batch, ''}
for i = 7, #ARGV do
  members[#members + 1] = ARGV[i]
end
local placed = enqueue_members(KEYS, members)
if placed[1] == 0 then
  return placed
end
redis.call('HINCRBY', KEYS[13], 'n:batches', 1)
redis.call('HSET', KEYS[13], 'B:' .. batch, cjson.encode({total = #placed[2], succeeded = 0, failed = 0, created = now}))
for n, name in ipairs({'death', 'complete', 'success'}) do
  if ARGV[3 + n] ~= '' then
    redis.call('HSET', KEYS[13], 'c:' .. batch .. '\n' .. name, ARGV[3 + n])
  end
end
return {1}
