-- Retention: of the users active on a day, how many were active on a later day. BITOP AND of the two days into a
-- scratch key, BITCOUNT of it and of the first day, and the scratch key deleted before the script returns.
-- KEYS[1]: the scratch key; KEYS[2]: the cohort's day; KEYS[3]: the later day (all in the activity's hash tag).
-- Returns {cohort, retained}.
local cohort = redis.call('BITCOUNT', KEYS[2])
redis.call('BITOP', 'AND', KEYS[1], KEYS[2], KEYS[3])
local retained = redis.call('BITCOUNT', KEYS[1])
redis.call('DEL', KEYS[1])
return {cohort, retained}
