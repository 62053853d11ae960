package io.rediskit.cache;

/**
 * Which misses of a cache load once across every instance, the others waiting for that load's value.
 */
public enum SingleFlight {

	/**
	 * Reads through the loader: {@code Cache.get(key, loader)} and {@code retrieve(key, loader)}, what
	 * {@code @Cacheable(sync = true)} calls. A loader's failure reaches every waiter. Plain reads
	 * ({@code @Cacheable} without {@code sync}) miss on their own, and each caller runs the method.
	 */
	LOADER,

	/**
	 * Plain reads as well: the first caller to miss ({@code @Cacheable} without {@code sync}) takes the entry's
	 * load lease and gets the miss, so that Spring runs the method; its {@code put} of the result stores it,
	 * ends the lease and hands the value to every caller waiting in any instance. Spring does not tell a cache
	 * that the method threw, or that its result is not cached ({@code unless}, {@code condition}): then the lease
	 * runs out after the load timeout, and one waiter misses in its turn (a waiter waits at most two load
	 * timeouts, then misses and runs the method itself). Keep the load timeout short for such
	 * methods, or use {@code sync = true}, which passes the failure on at once. A program that reads a cache
	 * directly must put what it loads after a miss, or its waiters wait out the load timeout. Plain asynchronous
	 * reads ({@code retrieve(key)}, {@code @Cacheable} without {@code sync} on a method returning a future or a
	 * reactive type) are not covered: each misses on its own.
	 */
	EVERY_MISS

}
