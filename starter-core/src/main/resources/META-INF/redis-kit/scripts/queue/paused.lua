-- Tells whether a queue, or one listener of it, is paused. Read only.
-- KEYS[1] the queue's pause hash (see pause.lua)
-- ARGV[1] the field
-- Returns the time it was paused at in ms, or -1.
local since = redis.call('HGET', KEYS[1], ARGV[1])
if since then
  return tonumber(since)
end
return -1
