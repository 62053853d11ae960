-- Posts an item for voting: its score is its posting time in seconds, and a posting key that lives as long as
-- the voting window says that it takes votes.
-- KEYS[1]: the board; KEYS[2]: the item's posting key. ARGV[1]: the item; ARGV[2]: the voting window in ms;
-- ARGV[3]: now in ms, pinned by tests, empty for the server's TIME.
-- Returns 1 if posted, 0 if the item is on the board already (nothing changes: a repost never reopens voting).
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  return 0
end
local now = tonumber(ARGV[3])
if not now then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
redis.call('SET', KEYS[2], now, 'PX', ARGV[2])
redis.call('ZADD', KEYS[1], string.format('%.17g', now / 1000), ARGV[1])
return 1
