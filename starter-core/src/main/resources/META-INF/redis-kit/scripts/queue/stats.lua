-- Counts a queue's messages by state. Read only.
-- KEYS: the eight queue keys (see enqueue.lua)
-- ARGV[1] now in ms, pinned by tests; empty for the server's TIME
-- Returns {now, delayed (not due yet), ready (due, promoted or not), in flight, dead, oldest due ms of a
-- ready message or -1}.
local now = tonumber(ARGV[1])
if not now then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
local due_delayed = redis.call('ZCOUNT', KEYS[1], '-inf', now)
local ready = redis.call('LLEN', KEYS[2])
local oldest = -1
local head = redis.call('LINDEX', KEYS[2], 0)
if head then
  local meta = redis.call('HGET', KEYS[5], head)
  if meta then
    oldest = tonumber(string.match(meta, '^(%d+)|'))
  end
end
if due_delayed > 0 then
  local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  local due = tonumber(first[2])
  if oldest == -1 or due < oldest then
    oldest = due
  end
end
return {now, redis.call('ZCARD', KEYS[1]) - due_delayed, ready + due_delayed, redis.call('ZCARD', KEYS[3]),
  redis.call('ZCARD', KEYS[4]), oldest}
