-- Searches geo sets (the cells covering an area, or one set) around a point, leaving out expired members.
-- KEYS[1..n-1] the geo sets, KEYS[n] the sorted set of update times in ms (read when ttl > 0)
-- ARGV[1] member ttl in ms, 0 when members never expire; ARGV[2] now in ms, pinned by tests, empty for TIME;
-- ARGV[3] longitude, ARGV[4] latitude, ARGV[5] most matches per set, ARGV[6] ASC or DESC;
-- ARGV[7] '1' for positions, empty for none; ARGV[8..] the area as GEOSEARCH takes it, in meters: BYRADIUS r m,
-- or BYBOX w h m
-- Returns member, distance in m, longitude, latitude per match (member and distance only without positions);
-- each set's matches in the order asked, at most ARGV[5] per set (the caller merges the sets and cuts to the limit)
local ttl = tonumber(ARGV[1])
local now = 0
if ttl > 0 then
  now = tonumber(ARGV[2])
  if not now then
    local time = redis.call('TIME')
    now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  end
end
local limit = tonumber(ARGV[5])
local positions = ARGV[7] == '1'
local command = {'GEOSEARCH', '', 'FROMLONLAT', ARGV[3], ARGV[4]}
for i = 8, #ARGV do
  command[#command + 1] = ARGV[i]
end
command[#command + 1] = ARGV[6]
command[#command + 1] = 'COUNT'
local count_at = #command + 1
command[count_at] = limit
command[#command + 1] = 'WITHDIST'
if positions then
  command[#command + 1] = 'WITHCOORD'
end
local updates = KEYS[#KEYS]
local result = {}
for k = 1, #KEYS - 1 do
  command[2] = KEYS[k]
  local count = limit
  while true do
    command[count_at] = count
    local found = redis.call(unpack(command))
    local fresh = {}
    local stale = 0
    for _, match in ipairs(found) do
      local keep = true
      if ttl > 0 then
        local updated = tonumber(redis.call('ZSCORE', updates, match[1]))
        keep = updated and now - updated < ttl
      end
      if keep then
        if #fresh < limit then
          fresh[#fresh + 1] = match
        end
      else
        stale = stale + 1
      end
    end
    -- Expired members took places in COUNT: ask for more until the set is exhausted or enough are fresh.
    if stale == 0 or #found < count or #fresh >= limit then
      for _, match in ipairs(fresh) do
        result[#result + 1] = match[1]
        result[#result + 1] = match[2]
        if positions then
          result[#result + 1] = match[3][1]
          result[#result + 1] = match[3][2]
        end
      end
      break
    end
    count = count + stale
  end
end
return result
