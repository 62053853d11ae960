-- Reserves a native (BF.*) filter with its sizing if it is absent, deleting its completeness mark then: a filter
-- created anew holds nothing, and a "never seen" from it must not be trusted. With a token, begins a seeding.
-- KEYS[1]: the filter's key; KEYS[2]: its completeness mark.
-- ARGV[1]: a seeding's token, written to the mark unless empty; ARGV[2..]: the arguments of BF.RESERVE after the key.
-- Returns 1 when the filter was reserved now, 0 when it existed.
local created = 0
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('DEL', KEYS[2])
  redis.call('BF.RESERVE', KEYS[1], unpack(ARGV, 2))
  created = 1
end
if ARGV[1] ~= '' then
  redis.call('SET', KEYS[2], ARGV[1])
end
return created
