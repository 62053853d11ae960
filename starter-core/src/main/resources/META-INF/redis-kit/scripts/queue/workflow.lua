-- The flow and batch bookkeeping of a message that finished, run as the function 'workflow' inside the scripts
-- that settle messages (ack, ack_many, retry, dead_letter, release, requeue, cancel), in their call.
-- KEYS: [1] meta, [2] payloads, [3] in-flight, [4] dead, [5] reasons (see enqueue.lua), [6] the workflow hash,
-- [7] the finished batches zset (batch id -> finished at ms), [8] delayed and [9] ready of the normal priority,
-- [10] and [11] of the high one, [12] and [13] of the low one.
-- The workflow hash: 'p:<child>' -> its parent's id; 'f:<parent>' -> the flow as JSON {pending, policy ('F', 'I'
-- or 'C'), state ('w' waiting for its children, 'r' released), children (ids)}; 'r:<parent>\n<child>' -> 's' and
-- the child's result, or 'f' and its failure; 'b:<member>' -> its batch's id; 'B:<batch>' -> the batch as JSON
-- {total, succeeded, failed, finished}; 'c:<batch>\n<event>' -> a callback: its priority letter, then its stored
-- payload; 'n:waiting' -> how many flows' parents wait for their children, 'n:batches' -> how many batches have not
-- finished (each field gone at 0).
-- ARGV[1] now in ms, ARGV[2] the id of the message, ARGV[3] what happened to it: 's' acknowledged, 'f' finally
-- failed (dead-lettered, or cancelled), 'c' a cancel asked for, ARGV[4] the result ('s') or the reason ('f'),
-- ARGV[5] wake-up channel, ARGV[6] cancel channel, ARGV[7] how long a finished batch is kept in ms.
-- A message's link is removed as it is counted, so a message counts once however it finishes; a replay of the
-- settling script never gets here (its token is settled).
-- Returns, for a cancel asked for ('c'), 1 when it removed a flow's waiting parent, else 0; otherwise what the
-- message's end did to its flow or batch, as the sum of: 1 its parent released because every child finished (due
-- now, or at its own due time), 2 its parent released at this first failure (CONTINUE), 4 its parent dead-lettered
-- (FAIL), 8 its batch's first failure ('death'), 16 its batch finished ('complete'), 32 every member of its batch
-- succeeded ('success'). The settling scripts add 8 times this sum to their reply (an event is told once: by the
-- instance whose settling did it, when the reply reaches it).
local W = KEYS[6]
if redis.call('EXISTS', W) == 0 then
  return 0
end
local now, id, event, data = tonumber(ARGV[1]), ARGV[2], ARGV[3], ARGV[4]
local delayed = {n = KEYS[8], h = KEYS[10], l = KEYS[12]}

-- Places a released parent or a batch's callback in delayed, with a wake-up when it is the earliest (earliest_due.lua,
-- a function of every script that includes this one).
local function place(message, due, priority)
  local first = earliest_due({KEYS[8], KEYS[10], KEYS[12]}, {})
  redis.call('ZADD', delayed[priority] or KEYS[8], due, message)
  if due < first then
    redis.call('PUBLISH', ARGV[5], string.format('%d', due))
  end
end

-- A child that has not finished: removed if not delivered yet, else marked cancelled as cancel.lua does.
local function cancel_child(child)
  for _, level in ipairs({{KEYS[8], KEYS[9]}, {KEYS[10], KEYS[11]}, {KEYS[12], KEYS[13]}}) do
    if redis.call('ZREM', level[1], child) == 1 or redis.call('LREM', level[2], 1, child) == 1 then
      redis.call('HDEL', KEYS[1], child)
      redis.call('HDEL', KEYS[2], child)
      return
    end
  end
  if redis.call('ZSCORE', KEYS[3], child) then
    redis.call('HSET', KEYS[5], child, 'cancelled')
    redis.call('PUBLISH', ARGV[6], child)
  end
end

-- One count fewer of 'n:waiting' or 'n:batches'.
local function count_down(field)
  if redis.call('HINCRBY', W, field, -1) <= 0 then
    redis.call('HDEL', W, field)
  end
end

-- Removes a flow's record, its results and the links of children still running.
local function forget(parent, flow)
  for _, child in ipairs(flow.children) do
    if redis.call('HGET', W, 'p:' .. child) == parent then
      redis.call('HDEL', W, 'p:' .. child)
    end
    redis.call('HDEL', W, 'r:' .. parent .. '\n' .. child)
  end
  redis.call('HDEL', W, 'f:' .. parent)
end

local function cancel_children(parent, flow)
  for _, child in ipairs(flow.children) do
    if redis.call('HGET', W, 'p:' .. child) == parent then
      redis.call('HDEL', W, 'p:' .. child)
      cancel_child(child)
    end
  end
end

-- The message as a parent: a cancel of a waiting parent takes its children with it; a parent that finished
-- otherwise leaves no record behind.
local own = redis.call('HGET', W, 'f:' .. id)
if own then
  local flow = cjson.decode(own)
  if event == 'c' then
    if flow.state ~= 'w' then
      return 0
    end
    cancel_children(id, flow)
    forget(id, flow)
    count_down('n:waiting')
    redis.call('HDEL', KEYS[1], id)
    redis.call('HDEL', KEYS[2], id)
    return 1
  end
  forget(id, flow)
  if flow.state == 'w' then
    count_down('n:waiting')
  end
end
if event == 'c' then
  return 0
end

local events = 0
local parent = redis.call('HGET', W, 'p:' .. id)
if parent then
  redis.call('HDEL', W, 'p:' .. id)
  local raw = redis.call('HGET', W, 'f:' .. parent)
  if raw then
    local flow = cjson.decode(raw)
    redis.call('HSET', W, 'r:' .. parent .. '\n' .. id, event .. data)
    local release = false
    if event == 's' or flow.policy == 'I' then
      flow.pending = flow.pending - 1
      release = flow.pending == 0
    elseif flow.policy == 'C' then
      release = true
    elseif flow.state == 'w' then
      -- FAIL: the parent goes to the dead letters with the child's reason, the children still waiting are cancelled.
      cancel_children(parent, flow)
      forget(parent, flow)
      count_down('n:waiting')
      local meta = redis.call('HGET', KEYS[1], parent)
      if meta then
        redis.call('ZADD', KEYS[4], now, parent)
        redis.call('HSET', KEYS[5], parent, 'child ' .. id .. ' failed: ' .. data)
        return 4
      end
      return 0
    end
    if release and flow.state == 'w' then
      flow.state = 'r'
      count_down('n:waiting')
      local meta = redis.call('HGET', KEYS[1], parent)
      if meta then
        local due = math.max(now, tonumber(string.match(meta, '^(%d+)|')))
        place(parent, due, flow.priority)
        events = (event == 's' or flow.policy == 'I') and 1 or 2
      end
    end
    redis.call('HSET', W, 'f:' .. parent, cjson.encode(flow))
  end
end

local batch = redis.call('HGET', W, 'b:' .. id)
if batch then
  redis.call('HDEL', W, 'b:' .. id)
  local raw = redis.call('HGET', W, 'B:' .. batch)
  if raw then
    local record = cjson.decode(raw)
    local fire = {}
    if event == 's' then
      record.succeeded = record.succeeded + 1
    else
      record.failed = record.failed + 1
      if record.failed == 1 then
        fire[#fire + 1] = 'death'
        events = events + 8
      end
    end
    if record.succeeded + record.failed == record.total then
      record.finished = now
      fire[#fire + 1] = 'complete'
      events = events + 16
      if record.failed == 0 then
        fire[#fire + 1] = 'success'
        events = events + 32
      end
      count_down('n:batches')
      redis.call('ZADD', KEYS[7], now, batch)
      local keep = tonumber(ARGV[7])
      for _, old in ipairs(redis.call('ZRANGEBYSCORE', KEYS[7], '-inf', now - keep, 'LIMIT', 0, 100)) do
        redis.call('ZREM', KEYS[7], old)
        redis.call('HDEL', W, 'B:' .. old)
      end
      redis.call('PEXPIRE', KEYS[7], keep)
    end
    redis.call('HSET', W, 'B:' .. batch, cjson.encode(record))
    for _, name in ipairs(fire) do
      local field = 'c:' .. batch .. '\n' .. name
      local callback = redis.call('HGET', W, field)
      if callback then
        redis.call('HDEL', W, field)
        local message = batch .. ':' .. name
        if redis.call('HEXISTS', KEYS[1], message) == 0 then
          redis.call('HSET', KEYS[1], message, string.format('%d|0|', now))
          redis.call('HSET', KEYS[2], message, string.sub(callback, 2))
          place(message, now, string.sub(callback, 1, 1))
        end
      end
    end
    if record.finished then
      redis.call('HDEL', W, 'c:' .. batch .. '\ndeath', 'c:' .. batch .. '\ncomplete', 'c:' .. batch .. '\nsuccess')
    end
  end
end
return events
