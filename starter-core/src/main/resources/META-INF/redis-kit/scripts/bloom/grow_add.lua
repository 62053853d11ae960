-- Adds items to a growing (scalable) Bloom filter: an item found in any layer is not new; a new item sets its bits
-- in the newest layer, and when that layer already holds its capacity, a new layer is started first.
-- KEYS[1]: the filter's record (a hash: sizing, layers, count in the newest layer, items in all);
-- KEYS[2..L+1]: the layers 0..L-1 the client computed offsets for (all in the filter's hash tag).
-- ARGV[1]: the sizing, compared with the stored one; ARGV[2]: ttl in ms (0: none); ARGV[3]: L; ARGV[4]: items;
-- ARGV[5]: the most layers; ARGV[6..5+L]: each layer's capacity; ARGV[6+L..5+2L]: each layer's hashes;
-- then per item, per layer 0..L-1, that layer's bit offsets for the item.
-- Returns {status, layers, count, new flags...} with one flag (1 new, 0 not) per item handled, in order:
-- status 1 when every item was handled; -1 when an item needs layer L, which the client did not send (it sends
-- the rest again with more layers); -2 when the last layer is full (the rest is refused); or {0, stored sizing}
-- when the filter is stored with other sizing (nothing written).
local record = KEYS[1]
local ttl = tonumber(ARGV[2])
local sent = tonumber(ARGV[3])
local items = tonumber(ARGV[4])
local maxLayers = tonumber(ARGV[5])

local stored = redis.call('HGET', record, 'sizing')
local layers, count
if not stored then
  layers, count = 1, 0
  redis.call('HSET', record, 'sizing', ARGV[1], 'layers', 1, 'count', 0, 'items', 0)
  if ttl > 0 then
    redis.call('PEXPIRE', record, ttl)
  end
elseif stored ~= ARGV[1] then
  return {0, stored}
else
  layers = tonumber(redis.call('HGET', record, 'layers'))
  count = tonumber(redis.call('HGET', record, 'count'))
end
if layers > sent then
  return {-1, layers, count}
end

local capacity, hashes, perItem, first = {}, {}, 0, {}
for i = 1, sent do
  capacity[i] = tonumber(ARGV[5 + i])
  hashes[i] = tonumber(ARGV[5 + sent + i])
  first[i] = perItem
  perItem = perItem + hashes[i]
end
local base = 6 + 2 * sent

local result = {1, 0, 0}
local added = 0
for item = 0, items - 1 do
  local at = base + item * perItem
  local found = false
  for layer = 1, layers do
    -- GETBIT one bit at a time: an item not in a layer is told by its first clear bit, about the second one.
    found = true
    for h = 0, hashes[layer] - 1 do
      if redis.call('GETBIT', KEYS[1 + layer], ARGV[at + first[layer] + h]) == 0 then
        found = false
        break
      end
    end
    if found then
      break
    end
  end
  if found then
    result[#result + 1] = 0
  else
    if count >= capacity[layers] then
      if layers == maxLayers then
        result[1] = -2
        break
      end
      if layers == sent then
        result[1] = -1
        break
      end
      layers, count = layers + 1, 0
    end
    local args = {}
    for h = 0, hashes[layers] - 1 do
      args[#args + 1] = 'SET'
      args[#args + 1] = 'u1'
      args[#args + 1] = ARGV[at + first[layers] + h]
      args[#args + 1] = 1
    end
    local key = KEYS[1 + layers]
    local created = redis.call('EXISTS', key) == 0
    redis.call('BITFIELD', key, unpack(args))
    if created and ttl > 0 then
      -- A layer lives as long as the filter: the record's remaining time.
      local left = redis.call('PTTL', record)
      if left > 0 then
        redis.call('PEXPIRE', key, left)
      end
    end
    count = count + 1
    added = added + 1
    result[#result + 1] = 1
  end
end
redis.call('HSET', record, 'layers', layers, 'count', count)
redis.call('HINCRBY', record, 'items', added)
result[2] = layers
result[3] = count
return result
