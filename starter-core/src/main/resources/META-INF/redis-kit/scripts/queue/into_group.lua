-- Makes a message ready in its group: 'group\nplace\nid' in the groups' ready zset (a group's messages sort by place),
-- 'group\nplace' for the id in the group hash, and the group in the turns, at the tail, unless it is there already.
-- Run as the function 'into_group' inside the scripts that make a grouped message ready (promote.lua and enqueue.lua
-- with a new place; release.lua and requeue.lua, which give a delivery back at once, with the place it had, so that it
-- is its group's next, through the group's turn and limits like any other of its messages).
-- KEYS: [1] the group hash, [2] the groups' ready zset, [3] the turns, [4] the sequence (see promote.lua)
-- ARGV[1] the id, ARGV[2] its group, ARGV[3] its place (16 digits), or '' for the next of the sequence
local place = ARGV[3]
local turn = nil
if place == '' then
  place = string.format('%016d', redis.call('INCR', KEYS[4]))
  turn = tonumber(place)
end
redis.call('ZADD', KEYS[2], 0, ARGV[2] .. '\n' .. place .. '\n' .. ARGV[1])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. '\n' .. place)
if not turn then
  if redis.call('ZSCORE', KEYS[3], ARGV[2]) then
    return
  end
  turn = redis.call('INCR', KEYS[4])
end
redis.call('ZADD', KEYS[3], 'NX', turn, ARGV[2])
