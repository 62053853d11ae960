-- Removes every message of a queue in every state, with UNLINK so that the server frees the memory in the
-- background however many there are.
-- KEYS: the eight queue keys and the four of the other priorities, then the unique hash (see enqueue.lua),
-- the workflow hash and the finished batches (see workflow.lua): flows and batches go with their messages; then the
-- five group keys (see promote.lua and claim.lua)
-- Returns how many messages there were.
local count = redis.call('HLEN', KEYS[5])
redis.call('UNLINK', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[9], KEYS[10], KEYS[11],
  KEYS[12], KEYS[13], KEYS[14], KEYS[15], KEYS[16], KEYS[17], KEYS[18], KEYS[19], KEYS[20])
return count
