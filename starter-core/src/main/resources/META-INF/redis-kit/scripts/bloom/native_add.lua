-- Adds items to a native (BF.*) filter, deleting its completeness mark when the add creates the filter anew: the
-- filter then holds this add's items only, and a "never seen" from it must not be trusted.
-- KEYS[1]: the filter's key; KEYS[2]: its completeness mark.
-- ARGV: the arguments of BF.INSERT after the key (CAPACITY, ERROR, NONSCALING, so it is created with its sizing).
-- Returns BF.INSERT's reply: per item 1 when added.
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('DEL', KEYS[2])
end
return redis.call('BF.INSERT', KEYS[1], unpack(ARGV))
