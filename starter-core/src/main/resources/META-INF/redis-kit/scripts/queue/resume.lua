-- Resumes a paused queue, or one listener of it, and wakes the consumers.
-- KEYS[1] the queue's pause hash (see pause.lua)
-- ARGV[1] the field, ARGV[2] wake-up channel
-- Returns 1 if it was paused, else 0.
local resumed = redis.call('HDEL', KEYS[1], ARGV[1])
if resumed == 1 then
  redis.call('PUBLISH', ARGV[2], '0')
end
return resumed
