-- Sets one bit and when its key expires: a day's bit in a user's month (a check-in), or a user's bit in a day
-- (daily activity).
-- KEYS[1]: the month's or day's key. ARGV[1]: the bit's offset (day of month - 1, or the user id); ARGV[2]: expiry
-- as a Unix time in ms (0: none); ARGV[3]: now in ms, pinned by tests, empty for the server's TIME.
-- Returns the bit's old value (0 when the bit is new), or -1 when the key is already past its expiry: then nothing
-- is written, since the key would be deleted as it is written.
local expires = tonumber(ARGV[2])
if expires > 0 then
  local now = tonumber(ARGV[3])
  if not now then
    local time = redis.call('TIME')
    now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  end
  if expires <= now then
    return -1
  end
end
local old = redis.call('BITFIELD', KEYS[1], 'SET', 'u1', ARGV[1], 1)[1]
if expires > 0 then
  redis.call('PEXPIREAT', KEYS[1], expires)
end
return old
