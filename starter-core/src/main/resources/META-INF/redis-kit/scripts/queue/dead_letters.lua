-- Lists dead letters, oldest first. Read only.
-- KEYS: the eight queue keys (see enqueue.lua)
-- ARGV[1] most dead letters to list
-- Returns per dead letter: id, payload, reason, dead-lettered at ms, deliveries, the priority's letter ('h', 'n' or
-- 'l': a dead letter's meta ends with 'h' or 'l' for the high and low priorities, see dead_letter.lua).
local reply = {}
for _, id in ipairs(redis.call('ZRANGE', KEYS[4], 0, tonumber(ARGV[1]) - 1)) do
  local meta = redis.call('HGET', KEYS[5], id) or '0|0|'
  reply[#reply + 1] = id
  reply[#reply + 1] = redis.call('HGET', KEYS[6], id) or ''
  reply[#reply + 1] = redis.call('HGET', KEYS[7], id) or ''
  reply[#reply + 1] = tonumber(redis.call('ZSCORE', KEYS[4], id))
  reply[#reply + 1] = tonumber(string.match(meta, '^%d+|(%d+)|'))
  reply[#reply + 1] = string.match(meta, '|([hl])$') or 'n'
end
return reply
