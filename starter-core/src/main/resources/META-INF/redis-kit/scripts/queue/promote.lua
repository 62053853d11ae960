-- Moves due messages from delayed to the end of ready, each priority to its own ready list, in due order (equal
-- due times: id order), at most ARGV[2] of them in all, high priority first, so that a million messages due at
-- once never make one long script. In a queue with groups (ARGV[3] '1') a due message of a group goes into its
-- group instead: the groups' ready zset holds 'group\nplace\nid' (place: 16 digits from the sequence, so a group's
-- messages sort in the order they became ready), the group hash records 'group\nplace' for the id, and the group
-- joins the turns at the tail (score: its place) unless it is there already: into_group.lua, run as the function
-- 'into_group'. Without groups no group key is read.
-- KEYS: the eight queue keys and the four of the other priorities (see enqueue.lua), [13] the group hash, [14] the
-- groups' ready zset, [15] the turns zset (group -> its place in the rotation; '' for the messages without a
-- group), [16] the sequence
-- ARGV[1] now in ms, pinned by tests; empty for the server's TIME, ARGV[2] most messages to move, ARGV[3] '1' in a
-- queue with groups
-- Returns {moved, earliest due ms still delayed or -1, now, ready length of every priority and group together}.
local now = tonumber(ARGV[1])
if not now then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
local groups = ARGV[3] == '1'
local budget = tonumber(ARGV[2])
local moved = 0
local next_due = -1
local ready = 0
for _, level in ipairs({{KEYS[9], KEYS[10]}, {KEYS[1], KEYS[2]}, {KEYS[11], KEYS[12]}}) do
  if budget > moved then
    local ids = redis.call('ZRANGEBYSCORE', level[1], '-inf', now, 'LIMIT', 0, budget - moved)
    if #ids > 0 then
      -- The ids read are the first of the zset by rank: removed as a range, with no member given nor looked up.
      redis.call('ZREMRANGEBYRANK', level[1], 0, #ids - 1)
      local plain = ids
      if groups then
        plain = {}
        local of = redis.call('HMGET', KEYS[13], unpack(ids))
        for n, id in ipairs(ids) do
          local group = of[n]
          if group then
            into_group({KEYS[13], KEYS[14], KEYS[15], KEYS[16]}, {id, string.match(group, '^[^\n]*'), ''})
          else
            plain[#plain + 1] = id
          end
        end
      end
      if #plain > 0 then
        redis.call('RPUSH', level[2], unpack(plain))
      end
      moved = moved + #ids
    end
  end
  local first = redis.call('ZRANGE', level[1], 0, 0, 'WITHSCORES')
  if first[2] and (next_due < 0 or tonumber(first[2]) < next_due) then
    next_due = tonumber(first[2])
  end
  ready = ready + redis.call('LLEN', level[2])
end
if groups then
  ready = ready + redis.call('ZCARD', KEYS[14])
end
return {moved, next_due, now, ready}
