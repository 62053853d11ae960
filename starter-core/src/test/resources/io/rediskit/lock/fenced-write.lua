-- A protected resource that accepts a write only with a fencing token above every token it accepted before.
-- KEYS[1] resource hash {token, value}; ARGV[1] fencing token, ARGV[2] value
-- Returns 1 when accepted, 0 when rejected as stale.
local last = tonumber(redis.call('HGET', KEYS[1], 'token') or '0')
if tonumber(ARGV[1]) <= last then
  return 0
end
redis.call('HSET', KEYS[1], 'token', ARGV[1], 'value', ARGV[2])
return 1
