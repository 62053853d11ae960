-- Adds members to one bucket of a unique counter (a HyperLogLog) and sets when the bucket expires.
-- KEYS[1]: the bucket's key. ARGV[1]: expiry as a Unix time in ms (0: none); ARGV[2..]: the members.
-- Returns 1 if the estimate changed, else 0.
local changed = 0
local chunk = 7000
for first = 2, #ARGV, chunk do
  local last = math.min(first + chunk - 1, #ARGV)
  if redis.call('PFADD', KEYS[1], unpack(ARGV, first, last)) == 1 then
    changed = 1
  end
end
if tonumber(ARGV[1]) > 0 then
  redis.call('PEXPIREAT', KEYS[1], ARGV[1])
end
return changed
