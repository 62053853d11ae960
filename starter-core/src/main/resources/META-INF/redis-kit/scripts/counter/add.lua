-- Adds members to one bucket of a unique counter (a HyperLogLog) and sets when the bucket expires.
-- KEYS[1]: the bucket's key. ARGV[1]: expiry as a Unix time in ms (0: none); ARGV[2]: now in ms, pinned by
-- tests, empty for the server's TIME; ARGV[3..]: the members.
-- Returns 1 if the estimate changed, 0 if not, or -1 when the bucket is already past its expiry: then nothing
-- is written, since the key would be deleted as it is written.
local expires = tonumber(ARGV[1])
if expires > 0 then
  local now = tonumber(ARGV[2])
  if not now then
    local time = redis.call('TIME')
    now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  end
  if expires <= now then
    return -1
  end
end
local changed = 0
local chunk = 7000
for first = 3, #ARGV, chunk do
  local last = math.min(first + chunk - 1, #ARGV)
  if redis.call('PFADD', KEYS[1], unpack(ARGV, first, last)) == 1 then
    changed = 1
  end
end
if expires > 0 then
  redis.call('PEXPIREAT', KEYS[1], expires)
end
return changed
