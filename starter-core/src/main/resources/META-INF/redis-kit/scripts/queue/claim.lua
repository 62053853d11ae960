-- Claims up to ARGV[3] ready messages: each moves to in-flight with a visibility deadline, one more delivery
-- and a fresh token (the request id, ':' and its place in the claim). A driver replay of the same request id
-- returns the messages that request claimed, as long as they are still in flight under its tokens.
-- KEYS: the eight queue keys (see enqueue.lua), [9] this request's record, a list of the ids it claimed
-- ARGV[1] now in ms, pinned by tests; empty for the server's TIME, ARGV[2] request id, ARGV[3] most messages,
-- ARGV[4] visibility timeout in ms
-- Returns {now, then per message: id, payload, deliveries, due ms, token}.
local now = tonumber(ARGV[1])
if not now then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
local request = ARGV[2]
local reply = {now}
if redis.call('EXISTS', KEYS[9]) == 1 then
  local ids = redis.call('LRANGE', KEYS[9], 0, -1)
  for i, id in ipairs(ids) do
    local meta = redis.call('HGET', KEYS[5], id)
    local token = request .. ':' .. i
    if meta then
      local due, deliveries, held = string.match(meta, '^(%d+)|(%d+)|(.*)$')
      if held == token then
        reply[#reply + 1] = id
        reply[#reply + 1] = redis.call('HGET', KEYS[6], id)
        reply[#reply + 1] = tonumber(deliveries)
        reply[#reply + 1] = tonumber(due)
        reply[#reply + 1] = token
      end
    end
  end
  return reply
end
local ids = redis.call('LPOP', KEYS[2], tonumber(ARGV[3]))
if not ids then
  return reply
end
local deadline = now + tonumber(ARGV[4])
local claimed = {}
for _, id in ipairs(ids) do
  local meta = redis.call('HGET', KEYS[5], id)
  if meta then
    local due, deliveries = string.match(meta, '^(%d+)|(%d+)|')
    deliveries = tonumber(deliveries) + 1
    claimed[#claimed + 1] = id
    local token = request .. ':' .. #claimed
    redis.call('HSET', KEYS[5], id, due .. '|' .. deliveries .. '|' .. token)
    redis.call('ZADD', KEYS[3], deadline, id)
    reply[#reply + 1] = id
    reply[#reply + 1] = redis.call('HGET', KEYS[6], id)
    reply[#reply + 1] = deliveries
    reply[#reply + 1] = tonumber(due)
    reply[#reply + 1] = token
  end
end
if #claimed > 0 then
  redis.call('RPUSH', KEYS[9], unpack(claimed))
  redis.call('PEXPIRE', KEYS[9], ARGV[4])
end
return reply
