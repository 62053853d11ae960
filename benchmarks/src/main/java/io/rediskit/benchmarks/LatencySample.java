package io.rediskit.benchmarks;

import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A bounded, uniform sample of latencies from which percentiles are read at the end of a run.
 * <p>
 * The first {@code capacity} values are kept as they come; after that each new value replaces a random
 * slot with the probability that keeps every value recorded so far equally likely to be in the sample
 * (reservoir sampling), so a long run costs no more memory than a short one and late values count as much
 * as early ones. Recording is thread-safe; two threads that pick the same slot at once lose one of their
 * values, which does not bias the sample.
 */
public final class LatencySample {

	private final long[] values;

	private final AtomicLong recorded = new AtomicLong();

	/**
	 * Creates an empty sample.
	 * @param capacity how many values are kept at most
	 */
	public LatencySample(int capacity) {
		if (capacity < 1) {
			throw new IllegalArgumentException("capacity must be at least 1, was " + capacity);
		}
		this.values = new long[capacity];
	}

	/**
	 * Records one latency.
	 * @param nanos the latency in nanoseconds
	 */
	public void record(long nanos) {
		long seen = this.recorded.incrementAndGet();
		if (seen <= this.values.length) {
			this.values[(int) (seen - 1)] = nanos;
			return;
		}
		long slot = ThreadLocalRandom.current().nextLong(seen);
		if (slot < this.values.length) {
			this.values[(int) slot] = nanos;
		}
	}

	/** @return how many latencies were recorded, kept or not */
	public long count() {
		return this.recorded.get();
	}

	/**
	 * Reads percentiles by nearest rank. Call it after recording has stopped.
	 * @param percentiles the percentiles to read, such as {@code 50} and {@code 99}
	 * @return each percentile in microseconds, in the order asked, or {@code NaN} each if nothing was recorded
	 */
	public double[] percentilesMicros(double... percentiles) {
		int kept = (int) Math.min(this.recorded.get(), this.values.length);
		double[] result = new double[percentiles.length];
		if (kept == 0) {
			Arrays.fill(result, Double.NaN);
			return result;
		}
		long[] sorted = Arrays.copyOf(this.values, kept);
		Arrays.sort(sorted);
		for (int i = 0; i < percentiles.length; i++) {
			int rank = (int) Math.ceil(percentiles[i] / 100.0 * kept);
			result[i] = sorted[Math.max(0, Math.min(kept, rank) - 1)] / 1000.0;
		}
		return result;
	}

}
