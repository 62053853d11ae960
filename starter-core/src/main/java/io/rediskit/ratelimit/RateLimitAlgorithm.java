package io.rediskit.ratelimit;

/**
 * How a {@link RateLimiter} counts. Every algorithm decides with one script call on the server's clock and
 * keeps the state of one key in one Redis key that expires when the key is idle.
 *
 * <table>
 * <caption>The algorithms side by side</caption>
 * <tr><th>algorithm</th><th>bound on admissions</th><th>memory per key</th><th>burst</th></tr>
 * <tr><td>{@link #SLIDING_LOG}</td><td>exact: at most {@code limit} in any window of one period</td>
 * <td>one sorted-set entry per admitted permit</td><td>none beyond the limit</td></tr>
 * <tr><td>{@link #SLIDING_WINDOW}</td><td>approximate: the weighted estimate stays within {@code limit};
 * at most {@code limit} per fixed window and under {@code 2 x limit} in any window of one period</td>
 * <td>one small hash</td><td>none beyond the limit</td></tr>
 * <tr><td>{@link #FIXED_WINDOW}</td><td>at most {@code limit} per window aligned to the period; up to
 * {@code 2 x limit} across a window boundary</td><td>one small hash</td><td>a whole window's limit at once</td></tr>
 * <tr><td>{@link #TOKEN_BUCKET}</td><td>at most {@code burst + limit x t / period} in any span {@code t}</td>
 * <td>one small hash</td><td>{@code burst} (default {@code limit})</td></tr>
 * <tr><td>{@link #GCRA}</td><td>at most {@code burst + limit x t / period} in any span {@code t}</td>
 * <td>one number</td><td>{@code burst} (default {@code limit})</td></tr>
 * </table>
 */
public enum RateLimitAlgorithm {

	/** Sorted-set log of admissions: exact, memory grows with the limit. */
	SLIDING_LOG("sliding-log", false),

	/** Two fixed-window counters weighted by overlap: O(1) memory, approximate. */
	SLIDING_WINDOW("sliding-window", false),

	/** One counter per window aligned to the period: O(1) memory, bursts at window boundaries. */
	FIXED_WINDOW("fixed-window", false),

	/** Token bucket of {@code burst} tokens refilled at {@code limit} per period. */
	TOKEN_BUCKET("token-bucket", true),

	/**
	 * Generic cell rate algorithm, the funnel of redis-cell's {@code CL.THROTTLE}: requests are spaced
	 * {@code period / limit} apart, with up to {@code burst} at once.
	 */
	GCRA("gcra", true);

	private final String keyPart;

	private final boolean burst;

	RateLimitAlgorithm(String keyPart, boolean burst) {
		this.keyPart = keyPart;
		this.burst = burst;
	}

	/** @return whether the algorithm takes a {@code burst} separate from its limit */
	public boolean supportsBurst() {
		return this.burst;
	}

	/** @return the algorithm's part of its Redis keys, such as {@code gcra} */
	String keyPart() {
		return this.keyPart;
	}

}
