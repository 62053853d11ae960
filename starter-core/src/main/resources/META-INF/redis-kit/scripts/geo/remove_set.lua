-- Removes members from one geo set and from the update times.
-- KEYS[1] the geo set, KEYS[2] the sorted set of update times; ARGV members
-- Returns how many members the geo set held
local removed = redis.call('ZREM', KEYS[1], unpack(ARGV))
redis.call('ZREM', KEYS[2], unpack(ARGV))
return removed
