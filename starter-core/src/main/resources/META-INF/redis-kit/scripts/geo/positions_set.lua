-- Positions of members of one geo set, leaving out expired ones.
-- KEYS[1] the geo set, KEYS[2] the sorted set of update times in ms (read when ttl > 0)
-- ARGV[1] member ttl in ms, 0 when members never expire; ARGV[2] now in ms, pinned by tests, empty for TIME;
-- ARGV[3..] members
-- Returns longitude, latitude per member as strings, both empty for a member absent or expired
local ttl = tonumber(ARGV[1])
local now = 0
if ttl > 0 then
  now = tonumber(ARGV[2])
  if not now then
    local time = redis.call('TIME')
    now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  end
end
local result = {}
for i = 3, #ARGV do
  local position = redis.call('GEOPOS', KEYS[1], ARGV[i])[1]
  local fresh = position
  if position and ttl > 0 then
    local updated = tonumber(redis.call('ZSCORE', KEYS[2], ARGV[i]))
    fresh = updated and now - updated < ttl
  end
  if fresh then
    result[#result + 1] = position[1]
    result[#result + 1] = position[2]
  else
    result[#result + 1] = ''
    result[#result + 1] = ''
  end
end
return result
