-- Enqueues the due slots of a recurring job, each at most once: a slot is taken only when it is later than the
-- job's last slot, which only grows, so a slot enqueued and already acknowledged is never enqueued again.
-- KEYS [1..8] the queue's keys, as every queue script (see enqueue.lua), [9] the job's last slot (string, ms),
-- [10] the job's pause flag: while it exists, every due slot is passed over (RecurringJobs.pause), [11] who took the
-- last slot ('<slot ms>|<instance>'; a key of its own, so that the record of [9] keeps the format older versions read)
-- ARGV[1] now in ms, pinned by tests; empty for the server's TIME, ARGV[2] wake-up channel, ARGV[3] TTL of the
-- job's record in ms, ARGV[4] this instance's name, then per slot, ascending: slot ms, message id, payload ('' to
-- pass the slot over: it becomes the last slot, nothing is enqueued)
-- Returns {now, the last slot afterwards (-1: none), then per slot 1 (enqueued), 2 (passed over), 0 (not later than
-- the last slot, or its id is held: another instance took it) or -1 (not due yet on the server's clock), then [11]
-- ('' if none): its slot differs from the last slot when an older version took that one}.
-- Messages are due at their slot's time and enqueued like enqueue.lua does (meta 'due|deliveries|token').
local now = tonumber(ARGV[1])
if not now then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
local last = tonumber(redis.call('GET', KEYS[9]) or '-1')
local paused = redis.call('EXISTS', KEYS[10]) == 1
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local earliest = first[2] and tonumber(first[2]) or math.huge
local soonest = math.huge
local moved = false
local reply = {now, 0}
for i = 5, #ARGV, 3 do
  local slot = tonumber(ARGV[i])
  local id = ARGV[i + 1]
  local payload = ARGV[i + 2]
  if slot > now then
    reply[#reply + 1] = -1
  elseif slot <= last then
    reply[#reply + 1] = 0
  else
    last = slot
    moved = true
    if payload == '' or paused then
      reply[#reply + 1] = 2
    elseif redis.call('HEXISTS', KEYS[5], id) == 1 then
      reply[#reply + 1] = 0
    else
      redis.call('ZADD', KEYS[1], slot, id)
      redis.call('HSET', KEYS[5], id, string.format('%d|0|', slot))
      redis.call('HSET', KEYS[6], id, payload)
      if slot < soonest then
        soonest = slot
      end
      reply[#reply + 1] = 1
    end
  end
end
if moved then
  redis.call('SET', KEYS[9], string.format('%d', last), 'PX', ARGV[3])
  redis.call('SET', KEYS[11], string.format('%d', last) .. '|' .. ARGV[4], 'PX', ARGV[3])
end
reply[2] = last
if soonest < earliest then
  redis.call('PUBLISH', ARGV[2], string.format('%d', soonest))
end
reply[#reply + 1] = redis.call('GET', KEYS[11]) or ''
return reply
