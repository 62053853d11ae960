-- One more hold for an owner that holds the lock (a re-entry); it never takes a lock the owner does not hold.
-- KEYS[1] lock hash (see acquire.lua)
-- ARGV[1] owner, ARGV[2] lease in ms, ARGV[3] request id
-- Returns {1, fencing token, hold count} when the owner holds the lock,
--         {0, ms until the current lease ends, -2 when the key is gone} when it does not: the owner's hold was
--         lost (its lease ended, or another owner has the lock).
-- A replay of the same request id (a client retry after a lost reply) counts once.
if redis.call('HGET', KEYS[1], 'o') ~= ARGV[1] then
  return {0, redis.call('PTTL', KEYS[1])}
end
local count
if redis.call('HGET', KEYS[1], 'r') == ARGV[3] then
  count = tonumber(redis.call('HGET', KEYS[1], 'c'))
else
  count = redis.call('HINCRBY', KEYS[1], 'c', 1)
  redis.call('HSET', KEYS[1], 'r', ARGV[3])
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return {1, tonumber(redis.call('HGET', KEYS[1], 'f')), count}
