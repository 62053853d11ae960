-- Counts a queue's messages by state, every priority together. Read only.
-- KEYS: the eight queue keys and the four of the other priorities (see enqueue.lua), [13] the groups' ready zset
-- (see promote.lua), whose messages count as ready, [14] the workflow hash (see workflow.lua)
-- ARGV[1] now in ms, pinned by tests; empty for the server's TIME
-- Returns {now, delayed (not due yet), ready (due, promoted or not), in flight, dead, oldest due ms of a
-- ready message or -1, flows' parents waiting for their children, batches not finished}.
local now = tonumber(ARGV[1])
if not now then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
local delayed, ready = 0, 0
local oldest = -1
for _, level in ipairs({{KEYS[1], KEYS[2]}, {KEYS[9], KEYS[10]}, {KEYS[11], KEYS[12]}}) do
  local due_delayed = redis.call('ZCOUNT', level[1], '-inf', now)
  delayed = delayed + redis.call('ZCARD', level[1]) - due_delayed
  ready = ready + redis.call('LLEN', level[2]) + due_delayed
  local head = redis.call('LINDEX', level[2], 0)
  if head then
    local meta = redis.call('HGET', KEYS[5], head)
    if meta then
      local due = tonumber(string.match(meta, '^(%d+)|'))
      if oldest == -1 or due < oldest then
        oldest = due
      end
    end
  end
  if due_delayed > 0 then
    local first = redis.call('ZRANGE', level[1], 0, 0, 'WITHSCORES')
    local due = tonumber(first[2])
    if oldest == -1 or due < oldest then
      oldest = due
    end
  end
end
ready = ready + redis.call('ZCARD', KEYS[13])
local workflow = redis.call('HMGET', KEYS[14], 'n:waiting', 'n:batches')
return {now, delayed, ready, redis.call('ZCARD', KEYS[3]), redis.call('ZCARD', KEYS[4]), oldest,
  tonumber(workflow[1]) or 0, tonumber(workflow[2]) or 0}
