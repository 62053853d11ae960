-- Looks items up in a growing (scalable) Bloom filter: an item might be in it when all its bits are set in any layer.
-- KEYS[1]: the filter's record; KEYS[2..L+1]: the layers 0..L-1 the client computed offsets for.
-- ARGV[1]: the sizing, compared with the stored one; ARGV[2]: L; ARGV[3]: items; ARGV[4..3+L]: each layer's
-- hashes; then per item, per layer 0..L-1, that layer's bit offsets for the item.
-- KEYS[L+2], when given: the filter's completeness mark, asked so that a "never seen" can be trusted or not.
-- Returns {1, layers, flags...} with one flag (1 might be in it, 0 not) per item, or {2, layers, flags...} when the
-- mark was given and says the filter is complete and every layer it has is there; {-1, layers} when the filter has
-- more layers than the client sent (it asks again); {0, stored sizing} when it is stored with other sizing.
local stored = redis.call('HMGET', KEYS[1], 'sizing', 'layers', 'count')
local sent = tonumber(ARGV[2])
local items = tonumber(ARGV[3])
local layers = 0
if stored[1] then
  if stored[1] ~= ARGV[1] then
    return {0, stored[1]}
  end
  layers = tonumber(stored[2])
  if layers > sent then
    return {-1, layers}
  end
end

local hashes, perItem, first = {}, 0, {}
for i = 1, sent do
  hashes[i] = tonumber(ARGV[3 + i])
  first[i] = perItem
  perItem = perItem + hashes[i]
end
local base = 4 + sent

local result = {1, layers}
if #KEYS == sent + 2 and stored[1] and redis.call('GET', KEYS[sent + 2]) == 'complete' then
  -- A layer evicted, expired or deleted on its own reads as zeros: the items it held would be "never seen". The
  -- full layers exist, and the newest once it holds an item (a filter seeded empty has none yet): one EXISTS of them.
  local expected = tonumber(stored[3]) > 0 and layers or layers - 1
  if expected == 0 or redis.call('EXISTS', unpack(KEYS, 2, 1 + expected)) == expected then
    result[1] = 2
  end
end
for item = 0, items - 1 do
  local at = base + item * perItem
  local found = false
  -- Newest layer first: each layer holds more items than all the older ones together, so an item that is there is
  -- most likely there. GETBIT one bit at a time: an item not in a layer is told by its first clear bit, about the
  -- second one.
  for layer = layers, 1, -1 do
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
  result[#result + 1] = found and 1 or 0
end
return result
