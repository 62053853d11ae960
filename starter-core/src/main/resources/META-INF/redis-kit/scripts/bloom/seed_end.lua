-- Ends a seeding: marks the filter complete if its mark still holds this seeding's token (nothing recreated the
-- filter since the seeding began, which deletes the mark) and the filter still exists. The mark lives as long as
-- the filter.
-- KEYS[1]: the filter's key (a shard, a growing filter's record, a native filter); KEYS[2]: its completeness mark.
-- ARGV[1]: the token the seeding wrote when it began.
-- Returns 1 when marked complete, 0 when the filter was lost or recreated meanwhile (seed again).
if redis.call('GET', KEYS[2]) ~= ARGV[1] or redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
local left = redis.call('PTTL', KEYS[1])
if left > 0 then
  redis.call('SET', KEYS[2], 'complete', 'PX', left)
else
  redis.call('SET', KEYS[2], 'complete')
end
return 1
