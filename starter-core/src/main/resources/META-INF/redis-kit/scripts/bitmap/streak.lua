-- Counts consecutive checked-in days ending on a day, walking back across months.
-- KEYS: the months' keys, the day's month first, then each month before it (all in the user's hash tag).
-- ARGV[1]: the day of month to start from; ARGV[2..]: the number of days of each month in KEYS.
-- Returns the streak: 0 when the day itself has no check-in.
local streak = 0
for m = 1, #KEYS do
  local days = tonumber(ARGV[m + 1])
  local start = days
  if m == 1 then
    start = tonumber(ARGV[1])
  end
  -- One read per month: bit (day - 1) from the left of a u<days> field.
  local value = redis.call('BITFIELD_RO', KEYS[m], 'GET', 'u' .. days, 0)[1]
  for day = start, 1, -1 do
    if math.floor(value / 2 ^ (days - day)) % 2 == 0 then
      return streak
    end
    streak = streak + 1
  end
end
return streak
