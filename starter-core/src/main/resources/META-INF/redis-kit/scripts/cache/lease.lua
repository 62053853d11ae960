-- Takes the load lease of an entry that still exists, for a reload in the background (early refresh,
-- stale-while-revalidate): of all the instances that decide to reload it, one does, and none once it was
-- rewritten since the decision (a reload started late, after another one stored a fresh value, is not needed).
-- KEYS[1]: the entry's key; KEYS[2]: its load lease, in the same hash slot.
-- ARGV[1]: the caller's token; ARGV[2]: the lease in ms; ARGV[3]: the entry's PTTL when the reload was decided.
-- Returns 1 when the caller now holds the lease, 0 when another caller holds it or the entry was rewritten.
if redis.call('PTTL', KEYS[1]) > tonumber(ARGV[3]) then
  return 0
end
if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return 1
end
return 0
