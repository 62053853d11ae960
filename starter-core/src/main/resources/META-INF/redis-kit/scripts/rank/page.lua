-- Reads a page of a board.
-- A view (a range of periods, a group) is computed into KEYS[1] from KEYS[2..] when KEYS[1] does not exist, then
-- kept ARGV[2] ms, so one reader computes it and the others read it: ARGV[1] is 'union' (scores summed) or
-- 'inter' (KEYS[2] is the board, KEYS[3] a group set; the board's scores kept). A stored board has no KEYS[2..].
-- ARGV[3]: the first index; ARGV[4]: the last index; ARGV[5]: '1' for highest first.
-- Returns member, score, member, score, ... in order.
if #KEYS > 1 and redis.call('EXISTS', KEYS[1]) == 0 then
  if ARGV[1] == 'inter' then
    redis.call('ZINTERSTORE', KEYS[1], 2, KEYS[2], KEYS[3], 'WEIGHTS', 1, 0)
  else
    redis.call('ZUNIONSTORE', KEYS[1], #KEYS - 1, unpack(KEYS, 2))
  end
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
if ARGV[5] == '1' then
  return redis.call('ZRANGE', KEYS[1], ARGV[3], ARGV[4], 'REV', 'WITHSCORES')
end
return redis.call('ZRANGE', KEYS[1], ARGV[3], ARGV[4], 'WITHSCORES')
