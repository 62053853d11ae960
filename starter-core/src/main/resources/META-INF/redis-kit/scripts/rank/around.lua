-- Reads a member and its neighbours.
-- A view (a range of periods, a group) is computed into KEYS[1] from KEYS[2..] when KEYS[1] does not exist, then
-- kept ARGV[2] ms, so one reader computes it and the others read it: ARGV[1] is 'union' (scores summed) or
-- 'inter' (KEYS[2] is the board, KEYS[3] a group set; the board's scores kept). A stored board has no KEYS[2..].
-- ARGV[3]: the member; ARGV[4]: how many before it; ARGV[5]: how many after it; ARGV[6]: '1' for highest first.
-- Returns {index of the first, member, score, member, score, ...}, or an empty array if the member is not on the
-- board.
if #KEYS > 1 and redis.call('EXISTS', KEYS[1]) == 0 then
  if ARGV[1] == 'inter' then
    redis.call('ZINTERSTORE', KEYS[1], 2, KEYS[2], KEYS[3], 'WEIGHTS', 1, 0)
  else
    redis.call('ZUNIONSTORE', KEYS[1], #KEYS - 1, unpack(KEYS, 2))
  end
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
local rev = ARGV[6] == '1'
local rank
if rev then
  rank = redis.call('ZREVRANK', KEYS[1], ARGV[3])
else
  rank = redis.call('ZRANK', KEYS[1], ARGV[3])
end
if not rank then
  return {}
end
local first = math.max(0, rank - tonumber(ARGV[4]))
local last = rank + tonumber(ARGV[5])
local entries
if rev then
  entries = redis.call('ZRANGE', KEYS[1], first, last, 'REV', 'WITHSCORES')
else
  entries = redis.call('ZRANGE', KEYS[1], first, last, 'WITHSCORES')
end
table.insert(entries, 1, first)
return entries
