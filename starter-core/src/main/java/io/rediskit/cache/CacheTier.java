package io.rediskit.cache;

/** Where a cache read was answered. */
public enum CacheTier {

	/** The instance's near cache, in memory. */
	NEAR,

	/** Redis. */
	REDIS;

	/** @return the metric tag, {@code near} or {@code redis} */
	public String tag() {
		return name().toLowerCase(java.util.Locale.ROOT);
	}

}
