-- Takes the load lease of an entry that still exists, for a reload in the background (early refresh,
-- stale-while-revalidate): of all the instances that decide to reload it, one does.
-- KEYS[1]: the entry's load lease.
-- ARGV[1]: the caller's token; ARGV[2]: the lease in ms.
-- Returns 1 when the caller now holds the lease, 0 when another caller holds it.
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return 1
end
return 0
