-- Reads a cache entry or claims the right to load it, in one step, so that of all the callers that miss one
-- entry across every instance exactly one loads it.
-- KEYS[1]: the entry's key; KEYS[2]: its load lease; KEYS[3]: the outcome of the last load that stored nothing;
-- all in the same hash slot.
-- ARGV[1]: the caller's token; ARGV[2]: the lease in ms; ARGV[3]: the token of the load the caller waits for
-- (the holder it was last told of), empty when it waits for none.
-- Returns {1, value, pttl} when the entry exists (pttl: the ms it has left, -1 without expiry); {3, message}
-- when the load the caller waits for ended without storing anything (it failed, or returned a null that is not
-- cached): the message that load published; {2} when the caller now holds the load lease; {0, holder} when
-- another caller holds it. A waiter that polls just after a failed load thus gets that failure, even before
-- (or without) its message, instead of the lease the load gave up; a caller waiting for nothing loads again.
local value = redis.call('GET', KEYS[1])
if value then
  return {1, value, redis.call('PTTL', KEYS[1])}
end
if ARGV[3] ~= '' then
  local outcome = redis.call('GET', KEYS[3])
  if outcome and string.sub(outcome, 1, #ARGV[3]) == ARGV[3] then
    return {3, string.sub(outcome, #ARGV[3] + 1)}
  end
end
if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return {2}
end
return {0, redis.call('GET', KEYS[2])}
