-- Sets a day's bit in a user's month and sets when the month expires.
-- KEYS[1]: the month's key. ARGV[1]: the day's offset (day of month - 1); ARGV[2]: expiry as a Unix time in ms
-- (0: none). Returns the bit's old value: 0 when the check-in is new.
local old = redis.call('BITFIELD', KEYS[1], 'SET', 'u1', ARGV[1], 1)[1]
if tonumber(ARGV[2]) > 0 then
  redis.call('PEXPIREAT', KEYS[1], ARGV[2])
end
return old
