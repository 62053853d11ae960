-- Reads a queue's groups (see claim.lua): the ready messages of each group in the turns and the messages in flight
-- of each group, bounded. Read only.
-- KEYS: [1] the group hash (a grouped message -> its group, see promote.lua), [2] the groups' ready zset, [3] the turns zset,
-- [4] the in-flight zset
-- ARGV[1] most groups in the turns looked at, ARGV[2] most messages in flight looked at
-- Returns {groups with ready messages, messages in flight looked at, then per group met: name, ready, in flight}
-- (groups in the turns order, then those met only in flight).
local turns = redis.call('ZRANGE', KEYS[3], 0, tonumber(ARGV[1]) - 1)
local order, ready, running = {}, {}, {}
for _, g in ipairs(turns) do
  if g ~= '' then
    order[#order + 1] = g
    ready[g] = redis.call('ZLEXCOUNT', KEYS[2], '[' .. g .. '\n', '[' .. g .. '\n\255')
    running[g] = 0
  end
end
local flying = redis.call('ZRANGE', KEYS[4], 0, tonumber(ARGV[2]) - 1)
for i = 1, #flying, 500 do
  local ids = {}
  for j = i, math.min(i + 499, #flying) do
    ids[#ids + 1] = flying[j]
  end
  for _, of in ipairs(redis.call('HMGET', KEYS[1], unpack(ids))) do
    if of then
      -- 'group', or 'group\nplace' once it was promoted into its group
      local g = string.match(of, '^[^\n]*')
      if not running[g] then
        order[#order + 1] = g
        ready[g] = 0
        running[g] = 0
      end
      running[g] = running[g] + 1
    end
  end
end
local reply = {redis.call('ZCARD', KEYS[3]) - (redis.call('ZSCORE', KEYS[3], '') and 1 or 0), #flying}
for _, g in ipairs(order) do
  reply[#reply + 1] = g
  reply[#reply + 1] = ready[g]
  reply[#reply + 1] = running[g]
end
return reply
