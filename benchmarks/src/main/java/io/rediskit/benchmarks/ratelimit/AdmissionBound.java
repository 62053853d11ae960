package io.rediskit.benchmarks.ratelimit;

import io.rediskit.ratelimit.RateLimitAlgorithm;

/**
 * The most permits an algorithm may admit on one key, from empty state, while the server clock moves from
 * {@code startMicros} to {@code endMicros} (both read with {@code TIME}, so every decision of the span lies
 * between them).
 * <ul>
 * <li>Sliding log (and Redisson's limiter, a log as well): at most {@code limit} in any window of one period,
 * and the span is covered by {@code floor(span / period) + 1} such windows (clock ticks are whole units, so a
 * window ending at tick {@code t} covers {@code (t - period, t]}).</li>
 * <li>Fixed and sliding window: at most {@code limit} per window aligned to the period (the sliding window's
 * estimate is never below the current window's count), times the aligned windows the span touches.</li>
 * <li>Token bucket and GCRA: {@code burst + limit x span / period}.</li>
 * </ul>
 */
final class AdmissionBound {

	private AdmissionBound() {
	}

	/**
	 * The bound of one of redis-kit's algorithms.
	 * @param algorithm the algorithm
	 * @param limit permits per period
	 * @param burst the bucket or burst size, for token bucket and GCRA
	 * @param periodMicros the period
	 * @param startMicros the server clock before the first call
	 * @param endMicros the server clock after the last call
	 * @return the most permits the algorithm may admit in the span
	 */
	static double of(RateLimitAlgorithm algorithm, long limit, long burst, long periodMicros, long startMicros,
			long endMicros) {
		long span = endMicros - startMicros;
		return switch (algorithm) {
			case SLIDING_LOG -> slidingLog(limit, periodMicros, span);
			case FIXED_WINDOW, SLIDING_WINDOW ->
				(double) limit * (Math.floorDiv(endMicros, periodMicros) - Math.floorDiv(startMicros, periodMicros) + 1);
			case TOKEN_BUCKET, GCRA -> burst + (double) limit * span / periodMicros;
		};
	}

	/**
	 * The bound of a log of admissions kept at a coarser clock, such as Redisson's, which stamps permits with
	 * the client's milliseconds.
	 * @param limit permits per period
	 * @param periodMicros the period, a whole number of clock ticks
	 * @param tickMicros one tick of the clock the log is kept in
	 * @param startMicros the server clock before the first call
	 * @param endMicros the server clock after the last call
	 * @return the most permits the log may admit in the span
	 */
	static double slidingLog(long limit, long periodMicros, long tickMicros, long startMicros, long endMicros) {
		long ticks = Math.floorDiv(endMicros, tickMicros) - Math.floorDiv(startMicros, tickMicros);
		return slidingLog(limit, periodMicros / tickMicros, ticks);
	}

	private static double slidingLog(long limit, long period, long span) {
		return (double) limit * (Math.floorDiv(span, period) + 1);
	}

}
