-- Adds items to one shard of a Bloom filter, creating the shard with its sizing header (and TTL) when it is
-- absent, so that bits never exist without the sizing they were set under.
-- KEYS[1]: the shard's key.
-- ARGV[1] total bits, ARGV[2] hashes, ARGV[3] shards, ARGV[4] magic, ARGV[5] ttl in ms (0: none),
-- ARGV[6..]: the bit offsets, ARGV[2] per item, in item order.
-- Returns {1, new...}: per item 1 when one of its bits was unset before (the item is new), else 0;
-- or {0, bits, hashes, shards, magic} as stored, when the shard holds a filter of other sizing (nothing set).
local key = KEYS[1]
local bits = tonumber(ARGV[1])
local hashes = tonumber(ARGV[2])
local shards = tonumber(ARGV[3])
local magic = tonumber(ARGV[4])
local ttl = tonumber(ARGV[5])

local header = redis.call('BITFIELD', key, 'GET', 'i64', 0, 'GET', 'u16', 64, 'GET', 'u16', 80, 'GET', 'u32', 96)
if header[4] == 0 then
  redis.call('BITFIELD', key, 'SET', 'i64', 0, ARGV[1], 'SET', 'u16', 64, ARGV[2], 'SET', 'u16', 80, ARGV[3],
    'SET', 'u32', 96, ARGV[4])
  if ttl > 0 then
    redis.call('PEXPIRE', key, ttl)
  end
elseif header[1] ~= bits or header[2] ~= hashes or header[3] ~= shards or header[4] ~= magic then
  return {0, header[1], header[2], header[3], header[4]}
end

-- One BITFIELD call per chunk of offsets: unpack() of Redis's Lua takes at most 8000 values.
local offsets = #ARGV - 5
local old = {}
local chunk = 1900
for first = 6, #ARGV, chunk do
  local last = math.min(first + chunk - 1, #ARGV)
  local args = {}
  for i = first, last do
    args[#args + 1] = 'SET'
    args[#args + 1] = 'u1'
    args[#args + 1] = ARGV[i]
    args[#args + 1] = 1
  end
  local replies = redis.call('BITFIELD', key, unpack(args))
  for i = 1, #replies do
    old[#old + 1] = replies[i]
  end
end

local result = {1}
for item = 0, offsets / hashes - 1 do
  local new = 0
  for i = 1, hashes do
    if old[item * hashes + i] == 0 then
      new = 1
    end
  end
  result[#result + 1] = new
end
return result
