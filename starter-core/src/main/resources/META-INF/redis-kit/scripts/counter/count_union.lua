-- Counts the union of unique counters that live in different hash slots: their HyperLogLogs, read by the client
-- with GET, are copied into scratch keys of one slot, counted together with one PFCOUNT, and deleted before the
-- script returns, so no copy outlives the call.
-- KEYS: one scratch key per counter (all in one hash tag). ARGV: the counters' HyperLogLogs in the same order, an
-- empty string for a counter that has no key yet.
-- Returns the estimate of the union (0 when no counter has a key).
local copies = {}
for i = 1, #KEYS do
  if #ARGV[i] > 0 then
    -- A TTL all the same: a value that is no HyperLogLog fails the PFCOUNT, and a failed script keeps its writes.
    redis.call('SET', KEYS[i], ARGV[i], 'PX', 60000)
    copies[#copies + 1] = KEYS[i]
  end
end
if #copies == 0 then
  return 0
end
local count = redis.call('PFCOUNT', unpack(copies))
redis.call('DEL', unpack(copies))
return count
