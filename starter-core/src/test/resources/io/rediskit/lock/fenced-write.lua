-- A protected resource that accepts a write only with a fencing token above every token it accepted before.
-- KEYS[1] resource hash {token, value, seq}; ARGV[1] fencing token, ARGV[2] value
-- Returns {1 when accepted or 0 when rejected as stale, the write's place in the resource's history}: every
-- write, accepted or not, takes the next number of seq, so callers in several JVMs learn the server's order of
-- their writes, which the order their replies reach anyone need not be.
local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
local last = tonumber(redis.call('HGET', KEYS[1], 'token') or '0')
if tonumber(ARGV[1]) <= last then
  return {0, seq}
end
redis.call('HSET', KEYS[1], 'token', ARGV[1], 'value', ARGV[2])
return {1, seq}
