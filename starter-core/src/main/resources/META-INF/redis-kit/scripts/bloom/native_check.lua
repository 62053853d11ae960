-- Looks items up in a native (BF.*) filter and tells whether a "never seen" may be trusted.
-- KEYS[1]: the filter's key; KEYS[2]: its completeness mark. ARGV: the items.
-- Returns BF.MEXISTS's reply (per item 1 when it may exist) followed by 1 when the filter is complete, else 0.
local reply = redis.call('BF.MEXISTS', KEYS[1], unpack(ARGV))
local complete = 0
if redis.call('GET', KEYS[2]) == 'complete' and redis.call('EXISTS', KEYS[1]) == 1 then
  complete = 1
end
reply[#reply + 1] = complete
return reply
