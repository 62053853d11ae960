-- Enqueues a batch: its members, placed as enqueue.lua places messages, each linked to the batch, with the
-- batch's record and its callbacks, which the last member to finish enqueues (see workflow.lua). All or nothing:
-- when the batch exists or a member's id is in the queue already nothing is added (a driver replay finds its own
-- batch and adds nothing).
-- KEYS: the twelve queue keys (see enqueue.lua), [13] the workflow hash (see workflow.lua)
-- ARGV[1] now in ms, pinned by tests; empty for the server's TIME, ARGV[2] wake-up channel, ARGV[3] batch id,
-- ARGV[4] to ARGV[6] the callbacks on death, complete and success: the priority letter and the stored payload,
-- or '' for none; then per member: id, payload, delay ms, due at ms (0 for none), priority ('h', 'n' or 'l')
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
for i = 7, #ARGV, 5 do
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
local total = 0
for i = 7, #ARGV, 5 do
  local id = ARGV[i]
  local due = math.max(now + tonumber(ARGV[i + 2]), tonumber(ARGV[i + 3]))
  redis.call('HSET', KEYS[5], id, string.format('%d|0|', due))
  redis.call('HSET', KEYS[6], id, ARGV[i + 1])
  redis.call('ZADD', delayed[ARGV[i + 4]] or KEYS[1], due, id)
  redis.call('HSET', KEYS[13], 'b:' .. id, batch)
  total = total + 1
  if due < soonest then
    soonest = due
  end
end
redis.call('HSET', KEYS[13], 'B:' .. batch, cjson.encode({total = total, succeeded = 0, failed = 0, created = now}))
for n, name in ipairs({'death', 'complete', 'success'}) do
  if ARGV[3 + n] ~= '' then
    redis.call('HSET', KEYS[13], 'c:' .. batch .. '\n' .. name, ARGV[3 + n])
  end
end
if soonest < earliest then
  redis.call('PUBLISH', ARGV[2], string.format('%d', soonest))
end
return {1}
