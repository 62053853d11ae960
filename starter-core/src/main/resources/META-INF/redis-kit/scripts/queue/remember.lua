-- Records what a settling script settled (delivery tokens, or a cancel's request id) in the settled zset, run as
-- the function 'remember' inside the scripts that settle messages, so that the same settle replayed (by the driver
-- after a reconnect, or by the caller after a call that failed) answers 2, a replay, rather than 0, stale.
-- Bounded twice, so that its memory follows neither the throughput nor the retention alone: an entry is kept for
-- ARGV[2] ms, and the zset keeps at most the 100,000 latest (the oldest go first). A replay older than either bound
-- answers 0: the settle it repeats took effect, but this call changed nothing.
-- KEYS: [1] the settled zset (member -> settled at ms)
-- ARGV: [1] now in ms, [2] how long an entry is kept in ms, [3] the members, a table
local now, keep, members = ARGV[1], ARGV[2], ARGV[3]
-- The score made text once: a number given to redis.call is made text again for every member.
local at = string.format('%d', now)
local scored = {}
for i = 1, #members do
  scored[2 * i - 1] = at
  scored[2 * i] = members[i]
end
redis.call('ZADD', KEYS[1], unpack(scored))
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - keep)
local over = redis.call('ZCARD', KEYS[1]) - 100000
if over > 0 then
  redis.call('ZREMRANGEBYRANK', KEYS[1], 0, over - 1)
end
redis.call('PEXPIRE', KEYS[1], keep)
