-- Counts one vote of a voter for an item, once per voter per item, while the item's voting window is open.
-- KEYS[1]: the board; KEYS[2]: the item's posting key (its TTL is what is left of the window); KEYS[3]: the item's
-- voters (a set, expiring with the posting key). ARGV[1]: the item; ARGV[2]: the voter; ARGV[3]: the vote's weight.
-- Returns 1 if counted, 0 if the voter had voted for the item, -1 if the window is closed or the item was never
-- posted or was removed. A replay of the same call (a client retry) finds the voter and counts nothing.
local left = redis.call('PTTL', KEYS[2])
if left <= 0 or not redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  return -1
end
if redis.call('SADD', KEYS[3], ARGV[2]) == 0 then
  return 0
end
redis.call('PEXPIRE', KEYS[3], left)
redis.call('ZINCRBY', KEYS[1], ARGV[3], ARGV[1])
return 1
