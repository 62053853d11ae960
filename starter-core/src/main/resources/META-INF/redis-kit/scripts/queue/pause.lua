-- Pauses a queue, or one listener of it, for every consumer: claims take nothing until it is resumed. Kept without
-- expiry, so that it outlives restarts.
-- KEYS[1] the queue's pause hash (field 'queue', or 'listener:' and the listener's id -> paused at ms)
-- ARGV[1] now in ms, pinned by tests; empty for the server's TIME, ARGV[2] the field
-- Returns {now, 1 if it was not paused before, else 0}.
local now = tonumber(ARGV[1])
if not now then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
return {now, redis.call('HSETNX', KEYS[1], ARGV[2], string.format('%d', now))}
