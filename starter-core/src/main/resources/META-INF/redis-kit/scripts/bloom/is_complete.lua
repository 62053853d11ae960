-- Whether a filter is complete: its mark says so and the filter exists.
-- KEYS[1]: the filter's key (a shard, a native filter); KEYS[2]: its completeness mark. A growing filter asks its
-- lookup script instead (grow_contains.lua), which also finds a layer lost on its own.
-- Returns 1 or 0.
if redis.call('GET', KEYS[2]) == 'complete' and redis.call('EXISTS', KEYS[1]) == 1 then
  return 1
end
return 0
