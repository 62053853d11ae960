-- Extends the visibility of deliveries still held under their tokens to now + ARGV[2] ms; never revives one
-- whose token is stale. Harmless when replayed.
-- KEYS: the eight queue keys (see enqueue.lua)
-- ARGV[1] now in ms, pinned by tests; empty for the server's TIME, ARGV[2] visibility in ms,
-- then pairs of id and token
-- Returns per pair 1 (extended) or 0 (stale).
local now = tonumber(ARGV[1])
if not now then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
local deadline = now + tonumber(ARGV[2])
local reply = {}
for i = 3, #ARGV, 2 do
  local meta = redis.call('HGET', KEYS[5], ARGV[i])
  if meta and string.match(meta, '^%d+|%d+|(.*)$') == ARGV[i + 1] then
    redis.call('ZADD', KEYS[3], 'XX', deadline, ARGV[i])
    reply[#reply + 1] = 1
  else
    reply[#reply + 1] = 0
  end
end
return reply
