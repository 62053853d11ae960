-- Moves up to ARGV[2] dead letters, oldest first, to the end of ready with their delivery count reset; in a queue
-- with groups a message of a group to the end of its group instead (into_group.lua, a new place), so that a tenant's
-- redriven failures wait for its turns and limits like its other messages.
-- KEYS: the eight queue keys (see enqueue.lua), then [9] the group hash, [10] the groups' ready zset, [11] the turns
-- and [12] the sequence (see promote.lua), [13] ready of the high and [14] of the low priority: a dead letter whose
-- meta ends with its priority's letter (see dead_letter.lua) goes back to that priority's ready list
-- ARGV[1] now in ms, pinned by tests; empty for the server's TIME, ARGV[2] most messages, ARGV[3] wake-up channel,
-- ARGV[4] '1' in a queue with groups (else no group key is read)
-- Returns how many moved.
local now = tonumber(ARGV[1])
if not now then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
local ready = {h = KEYS[13], l = KEYS[14]}
local ids = redis.call('ZRANGE', KEYS[4], 0, tonumber(ARGV[2]) - 1)
local groups = ARGV[4] == '1'
for _, id in ipairs(ids) do
  redis.call('ZREM', KEYS[4], id)
  redis.call('HDEL', KEYS[7], id)
  local letter = string.match(redis.call('HGET', KEYS[5], id) or '', '|([hl])$')
  redis.call('HSET', KEYS[5], id, string.format('%d|0|', now))
  local group = groups and redis.call('HGET', KEYS[9], id)
  if group then
    into_group({KEYS[9], KEYS[10], KEYS[11], KEYS[12]}, {id, string.match(group, '^[^\n]*'), ''})
  else
    redis.call('RPUSH', ready[letter] or KEYS[2], id)
  end
end
if #ids > 0 then
  redis.call('PUBLISH', ARGV[3], string.format('%d', now))
end
return #ids
