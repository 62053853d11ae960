-- Looks items up in one shard of a Bloom filter and tells whether a "never seen" may be trusted: whether the shard
-- is complete, holding every item that existed when it was seeded.
-- KEYS[1]: the shard's key; KEYS[2]: its completeness mark.
-- ARGV: the arguments of BITFIELD_RO after the key (the header's GETs, then 'GET' 'u1' <offset> per bit).
-- Returns the BITFIELD_RO reply followed by 1 when the mark says complete and the shard has its header, else 0.
local reply = redis.call('BITFIELD_RO', KEYS[1], unpack(ARGV))
local complete = 0
if reply[4] ~= 0 and redis.call('GET', KEYS[2]) == 'complete' then
  complete = 1
end
reply[#reply + 1] = complete
return reply
