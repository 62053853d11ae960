-- A first acquisition: takes a free lock, or adopts as one hold a lock its owner already has.
-- KEYS[1] lock hash {o = owner, c = hold count, f = fencing token, r = last request id}
-- KEYS[2] last fencing token handed out for this name
-- ARGV[1] owner, ARGV[2] lease in ms, ARGV[3] request id, ARGV[4] ttl of the fencing key in ms
-- Returns {1, fencing token, hold count} when the owner holds the lock,
--         {0, ms until the current lease ends, that owner} when another owner holds it.
-- A replay of the same request id (a client retry after a lost reply) changes nothing.
local owner = redis.call('HGET', KEYS[1], 'o')
if not owner then
  local now = redis.call('TIME')
  -- Server time in microseconds as a floor keeps tokens increasing even after the fencing key expired.
  local token = tonumber(now[1]) * 1000000 + tonumber(now[2])
  local last = tonumber(redis.call('GET', KEYS[2]) or '0')
  if token <= last then
    token = last + 1
  end
  local text = string.format('%d', token)
  redis.call('SET', KEYS[2], text, 'PX', ARGV[4])
  redis.call('HSET', KEYS[1], 'o', ARGV[1], 'c', '1', 'f', text, 'r', ARGV[3])
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return {1, token, 1}
end
if owner == ARGV[1] then
  -- The lock was handed to this owner by a release, or an attempt whose reply was lost took it: it is one
  -- hold, whatever the count said.
  redis.call('HSET', KEYS[1], 'c', '1', 'r', ARGV[3])
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return {1, tonumber(redis.call('HGET', KEYS[1], 'f')), 1}
end
return {0, redis.call('PTTL', KEYS[1]), owner}
