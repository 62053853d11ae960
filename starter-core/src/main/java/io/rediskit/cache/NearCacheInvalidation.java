package io.rediskit.cache;

/**
 * How a near cache learns that its copies are out of date. Both modes flush and bypass the near cache while the
 * connection that carries the invalidations is down or silent, until it carries them again.
 */
public enum NearCacheInvalidation {

	/**
	 * {@link #TRACKING} where the server offers it (RESP3 accepted, {@code HELLO 3}: standalone, Sentinel and Redis
	 * Cluster), {@link #PUBSUB} elsewhere (RESP2 only, a server without tracking). Decided once, when the tracking
	 * connection is first made; until then the near cache is bypassed.
	 */
	AUTO,

	/**
	 * Server-assisted client-side caching: one connection per cache manager (on Redis Cluster, one per master,
	 * following failovers and nodes added) with <code>CLIENT TRACKING ON BCAST PREFIX &lt;prefix&gt;cache:&#123;</code>,
	 * whose RESP3 invalidations drop a copy whoever changed the key: these caches, another application,
	 * {@code redis-cli}, an expiry, an eviction, a {@code FLUSHDB}. Where the server does not accept RESP3, the near
	 * cache stays bypassed (with a warning).
	 */
	TRACKING,

	/**
	 * The caches' own messages: every write, eviction and load of these caches publishes the key. Works on every
	 * deployment and protocol; changes made around the caches (another tool, an expiry) are not seen, and the near
	 * cache's TTL bounds how long such a copy lives.
	 */
	PUBSUB

}
