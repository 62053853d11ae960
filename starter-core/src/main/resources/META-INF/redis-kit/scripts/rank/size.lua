-- Counts the members of a board.
-- A view (a range of periods, a group) is computed into KEYS[1] from KEYS[2..] when KEYS[1] does not exist, then
-- kept ARGV[2] ms, so one reader computes it and the others read it: ARGV[1] is 'union' (scores summed) or
-- 'inter' (KEYS[2] is the board, KEYS[3] a group set; the board's scores kept). A stored board has no KEYS[2..].
-- Returns the count.
if #KEYS > 1 and redis.call('EXISTS', KEYS[1]) == 0 then
  if ARGV[1] == 'inter' then
    redis.call('ZINTERSTORE', KEYS[1], 2, KEYS[2], KEYS[3], 'WEIGHTS', 1, 0)
  else
    redis.call('ZUNIONSTORE', KEYS[1], #KEYS - 1, unpack(KEYS, 2))
  end
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return redis.call('ZCARD', KEYS[1])
