package io.rediskit.bloom;

/**
 * Where a filter's bits live.
 */
public enum BloomMode {

	/**
	 * Native {@code BF.*} filters when the server offers them (RedisBloom, or Redis 8 where they are built in)
	 * and the filter has no TTL nor growth; bitmaps otherwise. Detected once with {@code COMMAND INFO}.
	 */
	AUTO,

	/** Native {@code BF.*} filters; an operation fails with a clear message when the server has none. */
	NATIVE,

	/** Redis bitmaps, on any Redis: {@code BITFIELD} with a 128-bit hash and double hashing. */
	BITMAP

}
