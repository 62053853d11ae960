-- Moves one chosen dead letter to the end of ready with its delivery count reset, as redrive.lua moves the oldest.
-- A message that is not dead (redriven or purged meanwhile, or never dead) is left alone: the check and the move
-- are one script, so a concurrent redrive or purge cannot make it move twice or come back.
-- In a queue with groups, a message of a group goes to the end of its group instead, as in redrive.lua.
-- KEYS: the eight queue keys (see enqueue.lua), then [9] the group hash, [10] the groups' ready zset, [11] the turns
-- and [12] the sequence (see promote.lua), [13] ready of the high and [14] of the low priority: a dead letter whose
-- meta ends with its priority's letter (see dead_letter.lua) goes back to that priority's ready list
-- ARGV[1] now in ms, pinned by tests; empty for the server's TIME, ARGV[2] id, ARGV[3] wake-up channel, ARGV[4] '1'
-- in a queue with groups (else no group key is read)
-- Returns 1 (moved) or 0 (not a dead letter).
local id = ARGV[2]
if not redis.call('ZSCORE', KEYS[4], id) then
  return 0
end
local now = tonumber(ARGV[1])
if not now then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
local ready = {h = KEYS[13], l = KEYS[14]}
redis.call('ZREM', KEYS[4], id)
redis.call('HDEL', KEYS[7], id)
local letter = string.match(redis.call('HGET', KEYS[5], id) or '', '|([hl])$')
redis.call('HSET', KEYS[5], id, string.format('%d|0|', now))
local group = ARGV[4] == '1' and redis.call('HGET', KEYS[9], id)
if group then
  into_group({KEYS[9], KEYS[10], KEYS[11], KEYS[12]}, {id, string.match(group, '^[^\n]*'), ''})
else
  redis.call('RPUSH', ready[letter] or KEYS[2], id)
end
redis.call('PUBLISH', ARGV[3], string.format('%d', now))
return 1
