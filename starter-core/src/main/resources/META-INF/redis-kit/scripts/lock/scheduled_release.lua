-- Ends a scheduled run: frees the lock when lock-at-least has passed since the run started, else keeps the key,
-- owned by nobody, until it has.
-- KEYS[1] lock hash (see scheduled_acquire.lua)
-- ARGV[1] owner, ARGV[2] lock-at-least in ms, ARGV[3] channel told when the lock becomes free
-- Returns 0 when freed, the ms the key is kept for when lock-at-least has not passed, -1 when the owner does not
-- hold the lock (its lock-at-most or lease ended first). A replay answers as the first call did.
local owner = redis.call('HGET', KEYS[1], 'o')
if owner ~= ARGV[1] then
  if owner and redis.call('HGET', KEYS[1], 'd') == ARGV[1] then
    return redis.call('PTTL', KEYS[1])
  end
  return -1
end
local now = redis.call('TIME')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local keep = tonumber(redis.call('HGET', KEYS[1], 'a')) + tonumber(ARGV[2]) - ms
if keep <= 0 then
  redis.call('DEL', KEYS[1])
  redis.call('PUBLISH', ARGV[3], '1')
  return 0
end
-- An empty owner matches no one: nobody renews, releases or re-enters it; 'd' lets a replay of this call know.
redis.call('HSET', KEYS[1], 'o', '', 'd', ARGV[1])
redis.call('PEXPIRE', KEYS[1], keep)
return keep
