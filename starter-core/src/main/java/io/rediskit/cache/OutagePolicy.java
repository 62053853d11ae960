package io.rediskit.cache;

/**
 * What a cache's reads do while Redis cannot answer them (down, paused, unreachable, or behind the availability
 * gate). Writes and evictions are skipped under either policy, and no read throws for the outage.
 */
public enum OutagePolicy {

	/**
	 * A read is a miss: {@code @Cacheable} runs the method (the loader), whose result is returned but not cached.
	 * The database takes the whole load for as long as the outage lasts.
	 */
	BYPASS,

	/**
	 * A read is answered with the last value this instance's near cache held for the key, however old, even one
	 * the near cache no longer trusts (its invalidations stopped arriving with the outage); only a key the near
	 * cache never held goes to the loader, as under {@link #BYPASS}. Needs a near cache. The copies kept for this
	 * are never served while Redis answers.
	 */
	SERVE_STALE

}
