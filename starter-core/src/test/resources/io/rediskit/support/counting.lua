-- Test script: counts its runs in KEYS[1]. Returns the count, or {count, KEYS[1]} when ARGV[1] is "multi".
local runs = redis.call('INCR', KEYS[1])
if ARGV[1] == 'multi' then
  return { runs, KEYS[1] }
end
return runs
