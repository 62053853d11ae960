-- Moves due messages from delayed to the end of ready, in due order (equal due times: id order), at most
-- ARGV[2] of them, so that a million messages due at once never make one long script.
-- KEYS: the eight queue keys (see enqueue.lua)
-- ARGV[1] now in ms, pinned by tests; empty for the server's TIME, ARGV[2] most messages to move
-- Returns {moved, earliest due ms still delayed or -1, now, ready length}.
local now = tonumber(ARGV[1])
if not now then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[2]))
if #ids > 0 then
  redis.call('ZREM', KEYS[1], unpack(ids))
  redis.call('RPUSH', KEYS[2], unpack(ids))
end
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local next_due = first[2] and tonumber(first[2]) or -1
return {#ids, next_due, now, redis.call('LLEN', KEYS[2])}
