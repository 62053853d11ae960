-- Moves due messages from delayed to the end of ready, each priority to its own ready list, in due order (equal
-- due times: id order), at most ARGV[2] of them in all, high priority first, so that a million messages due at
-- once never make one long script.
-- KEYS: the eight queue keys and the four of the other priorities (see enqueue.lua)
-- ARGV[1] now in ms, pinned by tests; empty for the server's TIME, ARGV[2] most messages to move
-- Returns {moved, earliest due ms still delayed or -1, now, ready length of every priority together}.
local now = tonumber(ARGV[1])
if not now then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
local budget = tonumber(ARGV[2])
local moved = 0
local next_due = -1
local ready = 0
for _, level in ipairs({{KEYS[9], KEYS[10]}, {KEYS[1], KEYS[2]}, {KEYS[11], KEYS[12]}}) do
  if budget > moved then
    local ids = redis.call('ZRANGEBYSCORE', level[1], '-inf', now, 'LIMIT', 0, budget - moved)
    if #ids > 0 then
      redis.call('ZREM', level[1], unpack(ids))
      redis.call('RPUSH', level[2], unpack(ids))
      moved = moved + #ids
    end
  end
  local first = redis.call('ZRANGE', level[1], 0, 0, 'WITHSCORES')
  if first[2] and (next_due < 0 or tonumber(first[2]) < next_due) then
    next_due = tonumber(first[2])
  end
  ready = ready + redis.call('LLEN', level[2])
end
return {moved, next_due, now, ready}
