-- Releases one hold of a lock, hands the lock over to a waiting owner of the same client, or undoes one
-- acquisition whose reply never arrived.
-- KEYS[1] lock hash (see acquire.lua), KEYS[2] last fencing token handed out for this name
-- ARGV[1] owner, ARGV[2] lease in ms for the holds that remain, ARGV[3] request id,
-- ARGV[4] channel told when the lock becomes free, ARGV[5] '1' to undo only the acquisition ARGV[3],
-- ARGV[6] owner to hand the lock to when the last hold goes ('' for none), ARGV[7] its lease in ms,
-- ARGV[8] its request id, ARGV[9] ttl of the fencing key in ms,
-- ARGV[10] '1' when this is the owner's last hold as the client counts them: the lock goes whatever the
-- stored count says (a re-entry whose reply was lost may have raised it)
-- Returns {holds left, fencing token of the new owner or 0}: holds left is 0 when the lock is free or handed
-- over, -1 when the owner does not hold the lock, -2 when the acquisition to undo never took effect.
-- A replay of the same release request changes nothing.
if redis.call('HGET', KEYS[1], 'o') ~= ARGV[1] then
  return {-1, 0}
end
local last = redis.call('HGET', KEYS[1], 'r')
local applied = ARGV[3]
if ARGV[5] == '1' then
  if last ~= ARGV[3] then
    return {-2, 0}
  end
  -- Mark the undo done, so that a replay of it finds nothing to undo.
  applied = 'u' .. ARGV[3]
elseif last == ARGV[3] then
  return {tonumber(redis.call('HGET', KEYS[1], 'c')), 0}
end
local count = 0
if ARGV[10] ~= '1' then
  count = redis.call('HINCRBY', KEYS[1], 'c', -1)
end
if count > 0 then
  redis.call('HSET', KEYS[1], 'r', applied)
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return {count, 0}
end
if ARGV[6] ~= '' then
  -- Same token rule as acquire.lua: server microseconds as a floor, strictly above the last token.
  local now = redis.call('TIME')
  local token = tonumber(now[1]) * 1000000 + tonumber(now[2])
  local previous = tonumber(redis.call('GET', KEYS[2]) or '0')
  if token <= previous then
    token = previous + 1
  end
  local text = string.format('%d', token)
  redis.call('SET', KEYS[2], text, 'PX', ARGV[9])
  redis.call('HSET', KEYS[1], 'o', ARGV[6], 'c', '1', 'f', text, 'r', ARGV[8])
  redis.call('PEXPIRE', KEYS[1], ARGV[7])
  return {0, token}
end
redis.call('DEL', KEYS[1])
redis.call('PUBLISH', ARGV[4], '1')
return {0, 0}
