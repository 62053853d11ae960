-- Counts the users active on at least one day of a range: BITOP OR of the days into a scratch key, BITCOUNT, and
-- the scratch key deleted before the script returns, so no combined copy outlives the call.
-- KEYS[1]: the scratch key; KEYS[2..]: the days (all in the activity's hash tag). No ARGV.
-- Returns the count.
redis.call('BITOP', 'OR', KEYS[1], unpack(KEYS, 2))
local count = redis.call('BITCOUNT', KEYS[1])
redis.call('DEL', KEYS[1])
return count
