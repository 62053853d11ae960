-- Records a view: the item moves to the front of the user's recent items (capped, expiring after inactivity),
-- and counts once in the current trending bucket.
-- KEYS[1]: the user's recent items (a sorted set by view time); KEYS[2]: the current trending bucket.
-- ARGV[1]: the item; ARGV[2]: the cap; ARGV[3]: the user's idle TTL in ms; ARGV[4]: the bucket's TTL in ms;
-- ARGV[5]: now in ms, pinned by tests, empty for the server's TIME.
-- Returns the item's views in the bucket. Views of one user in the same millisecond still order newest first: a
-- view is never scored below the user's newest.
local now = tonumber(ARGV[5])
if not now then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
local newest = redis.call('ZRANGE', KEYS[1], 0, 0, 'REV', 'WITHSCORES')
if newest[2] then
  -- Above the newest, or level with it when the item is the newest: a re-view never moves an item back.
  local floor = tonumber(newest[2])
  if newest[1] ~= ARGV[1] then
    floor = floor + 1
  end
  now = math.max(now, floor)
end
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -(tonumber(ARGV[2]) + 1))
redis.call('PEXPIRE', KEYS[1], ARGV[3])
local views = redis.call('ZINCRBY', KEYS[2], 1, ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
return tonumber(views)
