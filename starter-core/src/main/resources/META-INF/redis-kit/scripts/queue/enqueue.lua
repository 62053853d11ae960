-- Enqueues messages under the deduplication each one asks for (a driver replay of the same call finds its own
-- messages and changes nothing, except as said for until-started below).
-- KEYS (every queue script): [1] delayed zset id -> due ms, [2] ready list of ids, [3] in-flight zset
-- id -> visibility deadline ms, [4] dead zset id -> dead-lettered at ms, [5] meta hash id -> 'due|deliveries|token',
-- [6] payload hash id -> payload, [7] dead-letter reason hash id -> reason, [8] settled zset token -> ms;
-- [1] and [2] hold the normal priority, and the scripts that place messages by priority also take [9] delayed and
-- [10] ready of the high priority, [11] delayed and [12] ready of the low one
-- This script also takes [13] the unique hash (an id given by the caller -> the id its latest message is stored
-- under, while that differs and the message is in the queue) and [14] the windows zset (id -> end of its
-- throttle or debounce window in ms, expiring with the last window), [15] the group hash (id -> its group, or,
-- once promoted into its group, the group, '\n' and its place in the group: see promote.lua), [16] the groups'
-- ready zset, [17] the turns, [18] the running zset and [19] the sequence (see promote.lua and claim.lua).
-- ARGV[1] now in ms, pinned by tests; empty for the server's TIME, ARGV[2] wake-up channel,
-- then per message: id, payload, delay ms, due at ms (0 for none), priority ('h', 'n' or 'l'), deduplication
-- ('' for a generated id, 'f' until finished, 's' until started, 't' throttle, 'd' debounce), window ms (0 for
-- none), the id to store under when an earlier message of the id is still in the queue ('' for '' and 'f'), its
-- group ('' for none, '\n' for none in a queue with groups, whose entry an earlier message of the id may have left:
-- a grouped message due now goes straight into its group, one with a delay waits in delayed like any other and
-- promote.lua moves it into its group);
-- due = max(now + delay, due at)
-- The message of an id is the latest one enqueued under it (its own id or, per the unique hash, another).
-- 'f': dropped while it is in the queue; 's': dropped while it waits for its first delivery (stored, no token,
-- no delivery, not dead); 't': dropped while the window is open; 'd': while the window is open and it waits
-- for its first delivery, its payload, priority and due time are replaced and the window opens again. Otherwise
-- the message is added, under its id if free, else under the given other id, and a window opens for 't' and 'd'.
-- A replayed until-started enqueue whose message was claimed in between adds it again.
-- Returns {now, then per message: 1 (added), 0 (dropped) or 2 (replaced), and the id the message is stored
-- under ('' for its own)}.
-- Publishes the earliest new due time when it is earlier than every due time before (earliest_due.lua, run as the
-- function 'earliest_due').
local now = tonumber(ARGV[1])
if not now then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
local delayed = {h = KEYS[9], n = KEYS[1], l = KEYS[11]}
local earliest = earliest_due({KEYS[9], KEYS[1], KEYS[11]}, {})
local soonest = math.huge
local windows = false
local reply = {now}

local function place(id, payload, due, priority)
  redis.call('ZADD', delayed[priority] or KEYS[1], due, id)
  redis.call('HSET', KEYS[5], id, string.format('%d|0|', due))
  redis.call('HSET', KEYS[6], id, payload)
  if due < soonest then
    soonest = due
  end
end

local function held(key)
  local other = redis.call('HGET', KEYS[13], key)
  if other then
    if redis.call('HEXISTS', KEYS[5], other) == 1 then
      return other
    end
    redis.call('HDEL', KEYS[13], key)
  end
  if redis.call('HEXISTS', KEYS[5], key) == 1 then
    return key
  end
  return nil
end

local function unstarted(id)
  local deliveries, token = string.match(redis.call('HGET', KEYS[5], id), '^%d+|(%d+)|(.*)$')
  return token == '' and deliveries == '0' and not redis.call('ZSCORE', KEYS[4], id)
end

local grouped = false
local ready_now = false

local function unplace(id)
  local group = redis.call('HGET', KEYS[15], id)
  if group and string.find(group, '\n', 1, true) and redis.call('ZREM', KEYS[16], group .. '\n' .. id) == 1 then
    return
  end
  for _, key in pairs(delayed) do
    if redis.call('ZREM', key, id) == 1 then
      return
    end
  end
  for _, key in ipairs({KEYS[10], KEYS[2], KEYS[12]}) do
    if redis.call('LREM', key, 1, id) == 1 then
      return
    end
  end
end

-- Places a message as place() does, or, for a message of a group due now, straight into its group (into_group.lua,
-- as promote.lua does), so that a few messages of one group never wait behind another group's flood in delayed.
local function put(id, payload, due, priority, group)
  if group == '' or group == '\n' then
    if group == '\n' then
      redis.call('HDEL', KEYS[15], id)
    end
    place(id, payload, due, priority)
    return
  end
  grouped = true
  if due > now then
    redis.call('HSET', KEYS[15], id, group)
    place(id, payload, due, priority)
    return
  end
  redis.call('HSET', KEYS[5], id, string.format('%d|0|', due))
  redis.call('HSET', KEYS[6], id, payload)
  into_group({KEYS[15], KEYS[16], KEYS[17], KEYS[19]}, {id, group, ''})
  ready_now = true
end

for i = 3, #ARGV, 9 do
  local key = ARGV[i]
  local mode = ARGV[i + 5]
  local group = ARGV[i + 8]
  local due = math.max(now + tonumber(ARGV[i + 2]), tonumber(ARGV[i + 3]))
  if mode == '' then
    if redis.call('HEXISTS', KEYS[5], key) == 1 then
      reply[#reply + 1] = 0
    else
      put(key, ARGV[i + 1], due, ARGV[i + 4], group)
      reply[#reply + 1] = 1
    end
    reply[#reply + 1] = ''
  else
    local holder = held(key)
    local window = tonumber(ARGV[i + 6])
    local open = false
    if window > 0 then
      local ends = redis.call('ZSCORE', KEYS[14], key)
      open = ends and tonumber(ends) > now
    end
    if (mode == 'f' and holder) or (mode == 's' and holder and unstarted(holder)) or (mode == 't' and open) then
      reply[#reply + 1] = 0
      reply[#reply + 1] = ''
    elseif mode == 'd' and open and holder and unstarted(holder) then
      unplace(holder)
      put(holder, ARGV[i + 1], due, ARGV[i + 4], group)
      redis.call('ZADD', KEYS[14], now + window, key)
      windows = true
      reply[#reply + 1] = 2
      reply[#reply + 1] = (holder == key) and '' or holder
    else
      local id = key
      if redis.call('HEXISTS', KEYS[5], key) == 1 then
        id = ARGV[i + 7]
        put(id, ARGV[i + 1], due, ARGV[i + 4], group)
        redis.call('HSET', KEYS[13], key, id)
        -- Entries whose message is gone are dropped as they are met, and a few sampled at each write.
        local sample = redis.call('HRANDFIELD', KEYS[13], 3, 'WITHVALUES')
        for s = 1, #sample, 2 do
          if redis.call('HEXISTS', KEYS[5], sample[s + 1]) == 0 then
            redis.call('HDEL', KEYS[13], sample[s])
          end
        end
      else
        redis.call('HDEL', KEYS[13], key)
        put(id, ARGV[i + 1], due, ARGV[i + 4], group)
      end
      if window > 0 then
        redis.call('ZADD', KEYS[14], now + window, key)
        windows = true
      end
      reply[#reply + 1] = 1
      reply[#reply + 1] = (id == key) and '' or id
    end
  end
end
if grouped then
  -- Entries of messages that finished are dropped a few sampled at each grouped enqueue.
  local sample = redis.call('HRANDFIELD', KEYS[15], 3)
  for _, id in ipairs(sample) do
    if redis.call('HEXISTS', KEYS[5], id) == 0 then
      redis.call('HDEL', KEYS[15], id)
    end
  end
end
if windows then
  redis.call('ZREMRANGEBYSCORE', KEYS[14], '-inf', now)
  local last = redis.call('ZRANGE', KEYS[14], -1, -1, 'WITHSCORES')
  if last[2] then
    redis.call('PEXPIRE', KEYS[14], tonumber(last[2]) - now)
  end
end
if ready_now then
  soonest = math.min(soonest, now)
end
if soonest < earliest or ready_now then
  redis.call('PUBLISH', ARGV[2], string.format('%d', soonest))
end
return reply
