-- Moves up to ARGV[2] dead letters, oldest first, to the end of ready with their delivery count reset.
-- KEYS: the eight queue keys (see enqueue.lua)
-- ARGV[1] now in ms, pinned by tests; empty for the server's TIME, ARGV[2] most messages, ARGV[3] wake-up channel
-- Returns how many moved.
local now = tonumber(ARGV[1])
if not now then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
local ids = redis.call('ZRANGE', KEYS[4], 0, tonumber(ARGV[2]) - 1)
for _, id in ipairs(ids) do
  redis.call('ZREM', KEYS[4], id)
  redis.call('HDEL', KEYS[7], id)
  redis.call('HSET', KEYS[5], id, string.format('%d|0|', now))
  redis.call('RPUSH', KEYS[2], id)
end
if #ids > 0 then
  redis.call('PUBLISH', ARGV[3], string.format('%d', now))
end
return #ids
