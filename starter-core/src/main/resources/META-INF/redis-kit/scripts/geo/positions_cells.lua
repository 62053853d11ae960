-- Positions of members of a cell-sharded index, leaving out expired ones.
-- KEYS[1] hash of member to cell id, KEYS[2] sorted set of update times in ms (read when ttl > 0)
-- ARGV[1] member ttl in ms, 0 when members never expire; ARGV[2] now in ms, pinned by tests, empty for TIME;
-- ARGV[3] the key of a cell without its id (same hash tag as KEYS); ARGV[4..] members
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
for i = 4, #ARGV do
  local cell = redis.call('HGET', KEYS[1], ARGV[i])
  local position = false
  if cell then
    position = redis.call('GEOPOS', ARGV[3] .. cell, ARGV[i])[1]
  end
  if position and ttl > 0 then
    local updated = tonumber(redis.call('ZSCORE', KEYS[2], ARGV[i]))
    if not (updated and now - updated < ttl) then
      position = false
    end
  end
  if position then
    result[#result + 1] = position[1]
    result[#result + 1] = position[2]
  else
    result[#result + 1] = ''
    result[#result + 1] = ''
  end
end
return result
