-- Gives an owner's permits back and, in the same call, gives them to a waiting owner of the same client: no
-- release message for the permits handed over, no race with other clients.
-- KEYS[1] holders, KEYS[2] state (see semaphore_acquire.lua)
-- ARGV[1] owner, ARGV[2] channel told of freed permits, ARGV[3] next owner, ARGV[4] its permits,
-- ARGV[5] its lease in ms, ARGV[6] ttl of the state in ms
-- The next owner gets its permits only out of the ones freed here (so the permits held never grow), and, when a
-- total was set at run time, only within it (a total lowered since is respected). Every freed permit not handed
-- over is told on the channel, one message each, as semaphore_release.lua does.
-- Returns the next owner's fencing token (also when it held its permits already: an attempt of its own won),
--         0 when nothing was handed over (the freed permits were told on the channel), or
--         -1 when the owner held none (its lease ended, or it released before): nothing changed.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local ends = redis.call('ZSCORE', KEYS[1], ARGV[1])
local held = redis.call('HGET', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
if not ends or not held or tonumber(ends) <= now then
  -- An ended lease is not revived by a late release: its permits were free for others already.
  return -1
end
local freed = tonumber(string.match(held, '(%d+):'))
local function tell(count)
  for _ = 1, math.min(count, 64) do
    redis.call('PUBLISH', ARGV[2], '1')
  end
end
local next_ends = redis.call('ZSCORE', KEYS[1], ARGV[3])
local next_held = redis.call('HGET', KEYS[2], ARGV[3])
if next_ends and next_held and tonumber(next_ends) > now then
  tell(freed)
  local _, token = string.match(next_held, '(%d+):(%d+)')
  return tonumber(token)
end
local permits = tonumber(ARGV[4])
local fits = permits <= freed
local set_total = redis.call('HGET', KEYS[2], 'o')
if fits and set_total then
  local used = 0
  local holders = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. now, '+inf')
  for _, holder in ipairs(holders) do
    local entry = redis.call('HGET', KEYS[2], holder)
    if entry then
      used = used + tonumber(string.match(entry, '(%d+):'))
    end
  end
  fits = used + permits <= tonumber(set_total)
end
if not fits then
  tell(freed)
  return 0
end
local token = grant(KEYS, {ARGV[3], ARGV[4], ARGV[5], ARGV[6], time[1], time[2]})
tell(freed - permits)
return token
