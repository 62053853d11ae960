-- Adds to a member's score on the all-time board and on the current period boards, setting when each period
-- board expires.
-- KEYS[1]: the all-time board; KEYS[2..]: the current period boards (all in the leaderboard's hash tag).
-- ARGV[1]: the member; ARGV[2]: the delta; ARGV[3]: now in ms, pinned by tests, empty for the server's TIME;
-- ARGV[4..]: when each period board expires, a Unix time in ms, in the order of KEYS[2..].
-- Returns {1, new all-time score}, or {-1, expiry} when a period board is already past its expiry: then nothing is
-- written, since that board would be deleted as it is written.
if #KEYS > 1 then
  local now = tonumber(ARGV[3])
  if not now then
    local time = redis.call('TIME')
    now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  end
  for i = 4, #ARGV do
    if tonumber(ARGV[i]) <= now then
      return {-1, ARGV[i]}
    end
  end
end
local score = redis.call('ZINCRBY', KEYS[1], ARGV[2], ARGV[1])
for i = 2, #KEYS do
  redis.call('ZINCRBY', KEYS[i], ARGV[2], ARGV[1])
  redis.call('PEXPIREAT', KEYS[i], ARGV[i + 2])
end
return {1, score}
