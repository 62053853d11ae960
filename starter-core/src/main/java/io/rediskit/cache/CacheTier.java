package io.rediskit.cache;

/** Where a cache read was answered. */
public enum CacheTier {

	/** The instance's near cache, in memory. */
	NEAR,

	/** Redis. */
	REDIS,

	/**
	 * The near cache's last copy, served while Redis could not answer ({@link OutagePolicy#SERVE_STALE}), however
	 * old.
	 */
	STALE;

	/** @return the metric tag, {@code near}, {@code redis} or {@code stale} */
	public String tag() {
		return name().toLowerCase(java.util.Locale.ROOT);
	}

}
