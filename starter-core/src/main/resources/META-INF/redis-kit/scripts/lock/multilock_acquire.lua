-- The multi-key lock's step: takes several locks at once, all or none, for names in one hash slot (or on a
-- server that is not a cluster). Each lock is the single lock's hash, so a multi-key hold and getLock(name)
-- exclude each other, and the watchdog renews and the release frees each name as it does a single lock.
-- KEYS[2i-1] lock hash of name i (see acquire.lua), KEYS[2i] last fencing token handed out for name i
-- ARGV[1] owner, ARGV[2] lease in ms, ARGV[3] request id, ARGV[4] ttl of the fencing keys in ms
-- Returns {1, token of name 1, token of name 2, ...} when the owner holds every lock,
--         {0, index of a lock another owner holds (from 1), ms until its lease ends}; nothing changed then.
-- A replay of the same call (a client retry after a lost reply) finds the owner on every lock and adopts them.
local n = #KEYS / 2
for i = 1, n do
  local owner = redis.call('HGET', KEYS[2 * i - 1], 'o')
  if owner and owner ~= ARGV[1] then
    return {0, i, redis.call('PTTL', KEYS[2 * i - 1])}
  end
end
local now = redis.call('TIME')
-- The same fencing rule as acquire.lua: the server's clock in microseconds, or one more than the last token.
local floor = tonumber(now[1]) * 1000000 + tonumber(now[2])
local reply = {1}
for i = 1, n do
  local lock = KEYS[2 * i - 1]
  local token
  if redis.call('HGET', lock, 'o') == ARGV[1] then
    token = tonumber(redis.call('HGET', lock, 'f'))
    redis.call('HSET', lock, 'c', '1', 'r', ARGV[3])
  else
    token = floor
    local last = tonumber(redis.call('GET', KEYS[2 * i]) or '0')
    if token <= last then
      token = last + 1
    end
    local text = string.format('%d', token)
    redis.call('SET', KEYS[2 * i], text, 'PX', ARGV[4])
    redis.call('HSET', lock, 'o', ARGV[1], 'c', '1', 'f', text, 'r', ARGV[3])
  end
  redis.call('PEXPIRE', lock, ARGV[2])
  reply[i + 1] = token
end
return reply
