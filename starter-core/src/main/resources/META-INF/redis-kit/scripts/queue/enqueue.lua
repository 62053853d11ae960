-- Enqueues messages, skipping those whose id the queue already holds (deduplication; a driver replay of the
-- same call finds its own messages and changes nothing).
-- KEYS (every queue script): [1] delayed zset id -> due ms, [2] ready list of ids, [3] in-flight zset
-- id -> visibility deadline ms, [4] dead zset id -> dead-lettered at ms, [5] meta hash id -> 'due|deliveries|token',
-- [6] payload hash id -> payload, [7] dead-letter reason hash id -> reason, [8] settled zset token -> ms;
-- [1] and [2] hold the normal priority, and the scripts that place messages by priority also take [9] delayed and
-- [10] ready of the high priority, [11] delayed and [12] ready of the low one
-- ARGV[1] now in ms, pinned by tests; empty for the server's TIME, ARGV[2] wake-up channel,
-- then per message: id, payload, delay ms, due at ms (0 for none), priority ('h', 'n' or 'l');
-- due = max(now + delay, due at)
-- Returns {now, then per message 1 (added) or 0 (the id was already held)}.
-- Publishes the earliest new due time when it is earlier than every due time before.
local now = tonumber(ARGV[1])
if not now then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
local delayed = {h = KEYS[9], n = KEYS[1], l = KEYS[11]}
local earliest = math.huge
for _, key in pairs(delayed) do
  local first = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  if first[2] and tonumber(first[2]) < earliest then
    earliest = tonumber(first[2])
  end
end
local soonest = math.huge
local reply = {now}
for i = 3, #ARGV, 5 do
  local id = ARGV[i]
  if redis.call('HEXISTS', KEYS[5], id) == 1 then
    reply[#reply + 1] = 0
  else
    local due = math.max(now + tonumber(ARGV[i + 2]), tonumber(ARGV[i + 3]))
    redis.call('ZADD', delayed[ARGV[i + 4]] or KEYS[1], due, id)
    redis.call('HSET', KEYS[5], id, string.format('%d|0|', due))
    redis.call('HSET', KEYS[6], id, ARGV[i + 1])
    if due < soonest then
      soonest = due
    end
    reply[#reply + 1] = 1
  end
end
if soonest < earliest then
  redis.call('PUBLISH', ARGV[2], string.format('%d', soonest))
end
return reply
