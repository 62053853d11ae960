-- Adds items to a growing (scalable) Bloom filter: an item found in any layer is not new; a new item sets its bits
-- in the newest layer, and when that layer already holds its capacity, a new layer is started first.
-- KEYS[1]: the filter's record (a hash: sizing, layers, count in the newest layer, items in all);
-- KEYS[2..L+1]: the layers 0..L-1 the client computed offsets for (all in the filter's hash tag);
-- KEYS[L+2]: the filter's completeness mark, deleted when the filter is created anew: a filter recreated by an add
-- holds that add's items only, and a "never seen" from it must not be trusted. Deleted too when a layer the record
-- counts is missing (lost on its own); a seeding that begins on such a filter deletes it and starts over.
-- ARGV[1]: the sizing, compared with the stored one; ARGV[2]: ttl in ms (0: none); ARGV[3]: L; ARGV[4]: items;
-- ARGV[5]: the most layers; ARGV[6]: a seeding's token, written to the mark unless empty;
-- ARGV[7..6+L]: each layer's capacity; ARGV[7+L..6+2L]: each layer's hashes;
-- then per item, per layer 0..L-1, that layer's bit offsets for the item.
-- Returns {status, layers, count, new flags...} with one flag (1 new, 0 not) per item handled, in order:
-- status 1 when every item was handled; -1 when an item needs layer L, which the client did not send (it sends
-- the rest again with more layers); -2 when the last layer is full (the rest is refused); or {0, stored sizing}
-- when the filter is stored with other sizing (nothing written).
-- The record is read once and written once (only when an item was added), and the newest layer, while it has
-- room, is read by the BITFIELD that sets an item's bits: every redis.call costs about as much as the command.
local record = KEYS[1]
local ttl = tonumber(ARGV[2])
local sent = tonumber(ARGV[3])
local items = tonumber(ARGV[4])
local maxLayers = tonumber(ARGV[5])

local stored = redis.call('HMGET', record, 'sizing', 'layers', 'count', 'items')
local fresh = not stored[1]
local layers, count, total
if fresh then
  layers, count, total = 1, 0, 0
elseif stored[1] ~= ARGV[1] then
  return {0, stored[1]}
else
  layers, count, total = tonumber(stored[2]), tonumber(stored[3]), tonumber(stored[4])
end
local mark = KEYS[sent + 2]
-- A layer evicted, expired or deleted on its own leaves the record, and the items it held would read as never seen.
-- The full layers exist, and the newest once it holds an item: one EXISTS of them, when the call carries them all.
if not fresh and layers <= sent then
  local expected = count > 0 and layers or layers - 1
  if expected > 0 and redis.call('EXISTS', unpack(KEYS, 2, 1 + expected)) < expected then
    if ARGV[6] ~= '' then
      -- A seeding begins, and adds every item there is: it starts the filter over.
      redis.call('DEL', record)
      fresh = true
      layers, count, total = 1, 0, 0
    else
      -- Not complete from now on: this add may write the lost layer again, but not what it held.
      redis.call('DEL', mark)
    end
  end
end
if fresh then
  -- Layers left by a record lost before hold bits of no filter now (and perhaps another TTL).
  redis.call('DEL', mark, unpack(KEYS, 2, 1 + sent))
end
if ARGV[6] ~= '' then
  -- A seeding begins: the record is written below if fresh, in this same script.
  local left = fresh and ttl or redis.call('PTTL', record)
  if left > 0 then
    redis.call('SET', mark, ARGV[6], 'PX', left)
  else
    redis.call('SET', mark, ARGV[6])
  end
end
if layers > sent then
  return {-1, layers, count}
end

local capacity, hashes, perItem, first = {}, {}, 0, {}
for i = 1, sent do
  capacity[i] = tonumber(ARGV[6 + i])
  hashes[i] = tonumber(ARGV[6 + sent + i])
  first[i] = perItem
  perItem = perItem + hashes[i]
end
local base = 7 + 2 * sent

local result = {1, 0, 0}
local added = 0
local set = {}
for item = 0, items - 1 do
  local at = base + item * perItem
  local room = count < capacity[layers]
  local found = false
  -- The layers before the newest are full and no longer change; newest first, as an item that is there is most
  -- likely in the largest. GETBIT one bit at a time: an item not in a layer is told by its first clear bit.
  for layer = room and layers - 1 or layers, 1, -1 do
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
    if not room then
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
    local n = hashes[layers]
    local from = at + first[layers]
    for h = 0, n - 1 do
      set[4 * h + 1] = 'SET'
      set[4 * h + 2] = 'u1'
      set[4 * h + 3] = ARGV[from + h]
      set[4 * h + 4] = '1'
    end
    local key = KEYS[1 + layers]
    local created = ttl > 0 and redis.call('EXISTS', key) == 0
    local old = redis.call('BITFIELD', key, unpack(set, 1, 4 * n))
    if created then
      -- A layer lives as long as the filter: the record's remaining time.
      local left = fresh and ttl or redis.call('PTTL', record)
      if left > 0 then
        redis.call('PEXPIRE', key, left)
      end
    end
    -- New when one of its bits was clear before (in a layer just started, all were).
    local new = false
    for h = 1, n do
      if old[h] == 0 then
        new = true
        break
      end
    end
    if new then
      count = count + 1
      added = added + 1
      result[#result + 1] = 1
    else
      result[#result + 1] = 0
    end
  end
end
if fresh then
  redis.call('HSET', record, 'sizing', ARGV[1], 'layers', layers, 'count', count, 'items', added)
  if ttl > 0 then
    redis.call('PEXPIRE', record, ttl)
  end
elseif added > 0 then
  -- string.format: a Lua number passed as is would be written as 1e+15 past 14 digits.
  redis.call('HSET', record, 'layers', layers, 'count', count, 'items', string.format('%d', total + added))
end
result[2] = layers
result[3] = count
return result
