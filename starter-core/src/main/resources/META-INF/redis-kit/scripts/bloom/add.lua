-- Adds items to one shard of a Bloom filter, creating the shard with its sizing header (and TTL) when it is
-- absent, so that bits never exist without the sizing they were set under.
-- KEYS[1]: the shard's key; KEYS[2]: the shard's completeness mark, deleted when the shard is created anew: a
-- filter recreated by an add holds that add's items only, and a "never seen" from it must not be trusted.
-- ARGV[1] total bits, ARGV[2] hashes, ARGV[3] shards, ARGV[4] magic, ARGV[5] ttl in ms (0: none),
-- ARGV[6] a seeding's token, written to the mark (with the shard's remaining ttl) unless empty,
-- ARGV[7..]: the BITFIELD operations, 'SET' 'u1' <offset> '1' per bit, ARGV[2] bits per item, in item order.
-- The client builds the operations, so this script only unpacks them: a loop over the bits in Lua cost as much
-- again as the BITFIELD itself.
-- Returns {1, old bits...}: one list of the bits' old values per BITFIELD call (in order; the client decides
-- which items were new); or {0, bits, hashes, shards, magic} as stored, when the shard holds a filter of other
-- sizing (nothing set).
local key = KEYS[1]
local bits = tonumber(ARGV[1])
local hashes = tonumber(ARGV[2])
local shards = tonumber(ARGV[3])
local magic = tonumber(ARGV[4])
local ttl = tonumber(ARGV[5])

local header = redis.call('BITFIELD', key, 'GET', 'i64', 0, 'GET', 'u16', 64, 'GET', 'u16', 80, 'GET', 'u32', 96)
if header[4] == 0 then
  -- The shard's last bit first: the string is allocated once at its full length. Grown by later writes, Redis
  -- would keep up to as much again (1 MB more above 1 MB) as room to grow: twice the memory for a small filter.
  redis.call('SETBIT', key, 128 + math.floor((bits + shards - 1) / shards) - 1, 0)
  redis.call('BITFIELD', key, 'SET', 'i64', 0, ARGV[1], 'SET', 'u16', 64, ARGV[2], 'SET', 'u16', 80, ARGV[3],
    'SET', 'u32', 96, ARGV[4])
  if ttl > 0 then
    redis.call('PEXPIRE', key, ttl)
  end
  redis.call('DEL', KEYS[2])
elseif header[1] ~= bits or header[2] ~= hashes or header[3] ~= shards or header[4] ~= magic then
  return {0, header[1], header[2], header[3], header[4]}
end

if ARGV[6] ~= '' then
  local left = redis.call('PTTL', key)
  if left > 0 then
    redis.call('SET', KEYS[2], ARGV[6], 'PX', left)
  else
    redis.call('SET', KEYS[2], ARGV[6])
  end
end

-- unpack() of Redis's Lua takes at most 8000 values: chunks of 1996 operations of 4 values.
local result = {1}
local chunk = 7984
for first = 7, #ARGV, chunk do
  result[#result + 1] = redis.call('BITFIELD', key, unpack(ARGV, first, math.min(first + chunk - 1, #ARGV)))
end
return result
