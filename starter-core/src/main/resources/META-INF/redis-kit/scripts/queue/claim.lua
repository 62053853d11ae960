-- Claims up to ARGV[3] ready messages: each moves to in-flight with a visibility deadline, one more delivery
-- and a fresh token (the request id, ':' and its place in the claim, then the letter of its priority when that is
-- high or low, so that a script that takes it back or dead-letters it knows its priority: requeue.lua, the dead
-- letters' meta). A driver replay of the same request id
-- returns the messages that request claimed, as long as they are still in flight under its tokens.
-- Admission, in this order: nothing while the queue or this listener is paused; no more than ARGV[6] in flight
-- across all consumers; no more than ARGV[7] claimed in any window of ARGV[8] ms, counted by the rate limiter's
-- sliding log (sliding_log, the script of the SLIDING_LOG rate limiter, run as a function on this queue's key): the
-- log is asked how many it has room for, and records the messages actually claimed once they are known (a claim
-- the groups hold back spends none of the queue's rate).
-- A message held back stays ready, its delivery count unchanged. The priorities take their turns in the weighted
-- order of ARGV[9], from where the last claim left it; a turn whose list is empty goes to the next one in order.
-- KEYS: the eight queue keys (see enqueue.lua), [9] this request's record, a list of the ids it claimed (each
-- after its priority's letter), [10] high and [11] low ready list, [12] pause hash (field 'queue', or 'listener:'
-- and the listener's id -> paused at ms), [13] the rate limit's log, [14] the position in the weighted turn,
-- [15] the groups' ready zset, [16] the turns zset and [18] the sequence (see promote.lua), [17] the running zset
-- ('group\nid' of the messages claimed from a group with a limit; entries no longer in flight are dropped as met),
-- [19] the groups' rate log (zset: 'group\ntoken' of each message claimed from a group with a rate limit, scored by
-- the claim's time in ms) and [20] its counts (hash: a group to its entries in the log)
-- ARGV[1] now in ms, pinned by tests; empty for the server's TIME, ARGV[2] request id, ARGV[3] most messages,
-- ARGV[4] visibility timeout in ms, ARGV[5] listener id or '', ARGV[6] most in flight or 0, ARGV[7] rate limit or
-- 0, ARGV[8] its period in ms, ARGV[9] the weighted turn, one letter ('h', 'n', 'l') per pick, ARGV[10] '1' in a
-- queue with groups (else no group key is read), ARGV[11] a group's most in flight or 0, ARGV[12] a group's most
-- claimed per period or 0, ARGV[13] that period in ms, then triples of a group, its own most in flight and its own
-- most claimed per period (each 0 for none)
-- Groups: the normal priority's picks go round the turns, lowest score first, one message per group per turn,
-- the messages without a group ('' in the turns) taking theirs as one more group; a group served goes to the
-- tail, a group with no ready message left leaves the turns, a group at its limit of messages in flight or of
-- messages claimed in the last period keeps its place and is skipped. At most 1000 groups are looked at, and at
-- most 1000 entries that left the groups' rate window are removed per claim (the rest by the next ones: until then
-- they count, which holds back more, never less).
-- Returns {now, held back by (0 nothing, 1 paused, 2 in-flight limit, 3 rate limit, 4 group limits, 5 group rate
-- limits), how many ready messages were held back, ms until the rate limit (3) or a group's rate limit (5) may admit
-- one (0 otherwise), then per message: id, payload, deliveries, due ms, token, priority letter}.
local now = tonumber(ARGV[1])
if not now then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
local request = ARGV[2]
local reply = {now, 0, 0, 0}
if redis.call('EXISTS', KEYS[9]) == 1 then
  local entries = redis.call('LRANGE', KEYS[9], 0, -1)
  for i, entry in ipairs(entries) do
    local id = string.sub(entry, 2)
    local meta = redis.call('HGET', KEYS[5], id)
    local letter = string.sub(entry, 1, 1)
    local token = request .. ':' .. i .. (letter == 'n' and '' or letter)
    if meta then
      local due, deliveries, held = string.match(meta, '^(%d+)|(%d+)|(.*)$')
      if held == token then
        reply[#reply + 1] = id
        reply[#reply + 1] = redis.call('HGET', KEYS[6], id)
        reply[#reply + 1] = tonumber(deliveries)
        reply[#reply + 1] = tonumber(due)
        reply[#reply + 1] = token
        reply[#reply + 1] = letter
      end
    end
  end
  return reply
end
if redis.call('HEXISTS', KEYS[12], 'queue') == 1
    or (ARGV[5] ~= '' and redis.call('HEXISTS', KEYS[12], 'listener:' .. ARGV[5]) == 1) then
  reply[2] = 1
  return reply
end
local lists = {h = KEYS[10], n = KEYS[2], l = KEYS[11]}
local lengths = {h = redis.call('LLEN', KEYS[10]), n = redis.call('LLEN', KEYS[2]), l = redis.call('LLEN', KEYS[11])}
local groups = ARGV[10] == '1' and redis.call('ZCARD', KEYS[15]) or 0
local plain = lengths.n
lengths.n = lengths.n + groups
local want = math.min(tonumber(ARGV[3]), lengths.h + lengths.n + lengths.l)
if want == 0 then
  return reply
end
local take = want
local max_in_flight = tonumber(ARGV[6])
if max_in_flight > 0 then
  local room = math.max(0, max_in_flight - redis.call('ZCARD', KEYS[3]))
  if room < take then
    take = room
    reply[2] = 2
  end
end
-- The queue's rate: how many the log has room for now (an ask over the limit is refused and records nothing); the
-- messages claimed are recorded at the end, and a full log says when it admits one.
local rate_args = nil
if tonumber(ARGV[7]) > 0 and take > 0 then
  rate_args = {ARGV[7], tonumber(ARGV[8]) * 1000, tonumber(ARGV[7]) + 1, request .. ':', now * 1000}
  local room = sliding_log({KEYS[13]}, rate_args)[3]
  if room < take then
    take = room
    reply[2] = 3
  end
end
local function record_rate(count)
  if rate_args then
    if count > 0 then
      rate_args[3] = count
      sliding_log({KEYS[13]}, rate_args)
    end
    if reply[2] == 3 then
      rate_args[3] = 1
      reply[4] = math.max(1, math.ceil(sliding_log({KEYS[13]}, rate_args)[4] / 1000))
    end
  end
end
reply[3] = want - take
if take == 0 then
  record_rate(0)
  return reply
end
local order = {}
if lengths.h == 0 and lengths.l == 0 then
  for i = 1, take do
    order[i] = 'n'
  end
else
  local turn = ARGV[9]
  local size = #turn
  local pos = (tonumber(redis.call('GET', KEYS[14])) or 0) % size
  local counts = {h = 0, n = 0, l = 0}
  for i = 1, take do
    for step = 0, size - 1 do
      local at = (pos + step) % size
      local code = string.sub(turn, at + 1, at + 1)
      if lengths[code] > counts[code] then
        counts[code] = counts[code] + 1
        order[i] = code
        pos = (at + 1) % size
        break
      end
    end
  end
  redis.call('SET', KEYS[14], pos, 'PX', 86400000)
end
-- The normal priority's picks through the groups' rotation: which are plain, which come from which group.
local from_groups = {}
local rate_period = 0
if groups > 0 then
  local wanted = 0
  for _, c in ipairs(order) do
    if c == 'n' then
      wanted = wanted + 1
    end
  end
  local limits = {}
  local rates = {}
  local rated = tonumber(ARGV[12]) > 0
  for i = 14, #ARGV, 3 do
    limits[ARGV[i]] = tonumber(ARGV[i + 1])
    rates[ARGV[i]] = tonumber(ARGV[i + 2])
    rated = rated or rates[ARGV[i]] > 0
  end
  local default = tonumber(ARGV[11])
  local default_rate = tonumber(ARGV[12])
  rate_period = tonumber(ARGV[13])
  if rated then
    -- Entries that left the window, oldest first: each one off its group's count.
    local old = redis.call('ZRANGEBYSCORE', KEYS[19], '-inf', now - rate_period, 'LIMIT', 0, 1000)
    if #old > 0 then
      local counts = {}
      for _, m in ipairs(old) do
        local g = string.match(m, '^([^\n]*)\n')
        counts[g] = (counts[g] or 0) + 1
      end
      for g, n in pairs(counts) do
        if redis.call('HINCRBY', KEYS[20], g, -n) <= 0 then
          redis.call('HDEL', KEYS[20], g)
        end
      end
      redis.call('ZREM', KEYS[19], unpack(old))
    end
  end
  if plain > 0 then
    redis.call('ZADD', KEYS[16], 'NX', redis.call('INCR', KEYS[18]), '')
  end
  local queue = redis.call('ZRANGE', KEYS[16], 0, 999)
  local head = 1
  local state = {}
  local plain_left = plain
  local picked = 0
  local blocked = false
  local rate_blocked = false
  local tail = {}
  local gone = {}
  while picked < wanted and head <= #queue do
    local g = queue[head]
    head = head + 1
    if g == '' then
      if plain_left > 0 then
        plain_left = plain_left - 1
        picked = picked + 1
        queue[#queue + 1] = g
        tail[g] = #queue
      else
        gone[g] = true
      end
    else
      local st = state[g]
      if not st then
        st = {taken = 0, limit = limits[g] or default, rate = rates[g] or default_rate}
        if st.rate > 0 then
          st.claimed = tonumber(redis.call('HGET', KEYS[20], g)) or 0
        end
        if st.limit > 0 then
          st.running = 0
          for _, m in ipairs(redis.call('ZRANGEBYLEX', KEYS[17], '[' .. g .. '\n', '[' .. g .. '\n\255')) do
            if redis.call('ZSCORE', KEYS[3], string.sub(m, #g + 2)) then
              st.running = st.running + 1
            else
              redis.call('ZREM', KEYS[17], m)
            end
          end
        end
        state[g] = st
      end
      if st.limit > 0 and st.running >= st.limit then
        blocked = true
      elseif st.rate > 0 and st.claimed >= st.rate then
        rate_blocked = true
      else
        local item = redis.call('ZRANGEBYLEX', KEYS[15], '[' .. g .. '\n', '[' .. g .. '\n\255', 'LIMIT', st.taken, 1)[1]
        if item then
          st.taken = st.taken + 1
          if st.limit > 0 then
            st.running = st.running + 1
          end
          if st.rate > 0 then
            st.claimed = st.claimed + 1
          end
          picked = picked + 1
          from_groups[#from_groups + 1] = {g, item, st.limit > 0, st.rate > 0}
          queue[#queue + 1] = g
          tail[g] = #queue
        else
          gone[g] = true
        end
      end
    end
  end
  -- Served groups to the tail in the order of their last service; empty ones out of the turns.
  for at = 1, #queue do
    local g = queue[at]
    if gone[g] then
      redis.call('ZREM', KEYS[16], g)
    elseif tail[g] == at then
      redis.call('ZADD', KEYS[16], redis.call('INCR', KEYS[18]), g)
    end
  end
  -- Picks no group could fill (all at their limits) are held back, and the plain ones are what is left.
  local plain_picks = picked - #from_groups
  local kept = {}
  local seen = 0
  for _, c in ipairs(order) do
    if c == 'n' then
      seen = seen + 1
      if seen <= plain_picks then
        kept[#kept + 1] = c
      end
    else
      kept[#kept + 1] = c
    end
  end
  for _ = 1, #from_groups do
    kept[#kept + 1] = 'g'
  end
  if picked < wanted then
    reply[3] = reply[3] + wanted - picked
    if reply[2] == 0 and blocked then
      reply[2] = 4
    elseif reply[2] == 0 and rate_blocked then
      reply[2] = 5
    end
  end
  order = kept
end
local popped = {}
local next_of = {h = 1, n = 1, l = 1, g = 1}
local rate_recorded = false
if #from_groups > 0 then
  popped.g = {}
  for n, pick in ipairs(from_groups) do
    redis.call('ZREM', KEYS[15], pick[2])
    local id = string.match(pick[2], '^[^\n]*\n%d+\n(.*)$')
    popped.g[n] = id
    if pick[3] then
      redis.call('ZADD', KEYS[17], 0, pick[1] .. '\n' .. id)
    end
    if pick[4] then
      redis.call('ZADD', KEYS[19], now, pick[1] .. '\n' .. request .. ':' .. n)
      redis.call('HINCRBY', KEYS[20], pick[1], 1)
      rate_recorded = true
    end
  end
  if rate_recorded then
    -- Both go together when no entry is left in the window; until then each claim that records renews them.
    redis.call('PEXPIRE', KEYS[19], rate_period + 1)
    redis.call('PEXPIRE', KEYS[20], rate_period + 1)
  end
end
if reply[2] == 5 then
  -- The log's oldest entry (this claim's included) leaves the window first: no group's count falls sooner.
  local oldest = redis.call('ZRANGE', KEYS[19], 0, 0, 'WITHSCORES')[2]
  reply[4] = oldest and math.max(1, tonumber(oldest) + rate_period - now) or 1
end
for code, key in pairs(lists) do
  local count = 0
  for _, c in ipairs(order) do
    if c == code then
      count = count + 1
    end
  end
  if count > 0 then
    popped[code] = redis.call('LPOP', key, count)
  end
end
-- Made text once: a number given to redis.call is made text again for every message.
local deadline = string.format('%d', now + tonumber(ARGV[4]))
-- Read in two calls and written in two for the whole claim: a call per message costs more than its command.
local ids, codes = {}, {}
local found = 0
for _, code in ipairs(order) do
  local id = popped[code] and popped[code][next_of[code]]
  next_of[code] = next_of[code] + 1
  if id then
    found = found + 1
    ids[found] = id
    codes[found] = (code == 'g') and 'n' or code
  end
end
if found == 0 then
  record_rate(0)
  return reply
end
local metas = redis.call('HMGET', KEYS[5], unpack(ids))
local payloads = redis.call('HMGET', KEYS[6], unpack(ids))
local claimed = {}
local metas_set, in_flight = {}, {}
-- A number made text costs more in Lua than a command: the next delivery count is made once per count seen. Tables
-- grow by explicit places: '#' searches the table for its end each time.
local counts, numbers = {}, {}
local size, at = 0, #reply
for n = 1, found do
  local meta = metas[n]
  if meta then
    local id = ids[n]
    local due, seen = string.match(meta, '^(%d+)|(%d+)|')
    local count = counts[seen]
    if not count then
      count = tostring(tonumber(seen) + 1)
      counts[seen] = count
      numbers[seen] = tonumber(count)
    end
    local code = codes[n]
    size = size + 1
    claimed[size] = code .. id
    local token = request .. ':' .. size .. (code == 'n' and '' or code)
    metas_set[2 * size - 1] = id
    metas_set[2 * size] = due .. '|' .. count .. '|' .. token
    in_flight[2 * size - 1] = deadline
    in_flight[2 * size] = id
    reply[at + 1] = id
    reply[at + 2] = payloads[n]
    reply[at + 3] = numbers[seen]
    reply[at + 4] = tonumber(due)
    reply[at + 5] = token
    reply[at + 6] = code
    at = at + 6
  end
end
if size > 0 then
  redis.call('HSET', KEYS[5], unpack(metas_set))
  redis.call('ZADD', KEYS[3], unpack(in_flight))
  redis.call('RPUSH', KEYS[9], unpack(claimed))
  redis.call('PEXPIRE', KEYS[9], ARGV[4])
end
record_rate(size)
return reply
