-- Every instance heard from within the retention, with its last heartbeat and record, and the server time.
-- KEYS[1] beats: sorted set, member = instance id, score = its last heartbeat (server ms)
-- KEYS[2] records: hash, field = instance id, value = its encoded record
-- ARGV[1] retention in ms
-- Returns {now, id, last heartbeat, record, id, last heartbeat, record, ...}, oldest heartbeat first; an instance
-- whose record is gone is left out. Reads only: what the retention forgets is removed by the next heartbeat.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local reply = {now}
local beats = redis.call('ZRANGEBYSCORE', KEYS[1], now - tonumber(ARGV[1]), '+inf', 'WITHSCORES')
for i = 1, #beats, 2 do
  local record = redis.call('HGET', KEYS[2], beats[i])
  if record then
    table.insert(reply, beats[i])
    table.insert(reply, tonumber(beats[i + 1]))
    table.insert(reply, record)
  end
end
return reply
