package io.rediskit.bloom;

import java.time.Duration;

import io.rediskit.support.Expiry;
import io.rediskit.support.InvalidSpecException;
import org.jspecify.annotations.Nullable;

/**
 * What one Bloom filter holds: about {@code expectedInsertions} items with at most {@code falsePositiveRate}
 * false positives at that fill, and an optional {@code ttl} after which the filter starts over empty.
 * Sizing follows the standard formulas: {@link #bits() m} = -n ln p / (ln 2)<sup>2</sup> bits and
 * {@link #hashes() k} = round(m / n ln 2) hash functions.
 *
 * <pre>{@code
 * BloomFilterSpec spec = BloomFilterSpec.of(1_000_000, 0.01).withTtl(Duration.ofDays(30));
 * }</pre>
 *
 * @param expectedInsertions n, the items the filter is sized for, from 1 to {@link #MAX_EXPECTED_INSERTIONS}
 * @param falsePositiveRate p, the false-positive rate at n items, above 0 ({@link #MIN_FALSE_POSITIVE_RATE} at
 * least) and below 1
 * @param ttl how long the filter lives from its creation (its first insertion), from 1 ms to
 * {@link Expiry#MAX 100 years}; {@code null} for ever
 */
public record BloomFilterSpec(long expectedInsertions, double falsePositiveRate, @Nullable Duration ttl) {

	/** Most items a filter may be sized for. */
	public static final long MAX_EXPECTED_INSERTIONS = 100_000_000_000L;

	/** Smallest false-positive rate accepted (it takes 40 hash functions). */
	public static final double MIN_FALSE_POSITIVE_RATE = 1e-12;

	/** Most bits a filter may take: 2<sup>40</sup> (128 GiB), in 256 shards of at most 2<sup>32</sup> bits. */
	public static final long MAX_BITS = 1L << 40;

	/**
	 * Most bits one shard (one Redis string) holds: a string holds at most 2<sup>32</sup> bits, of which the
	 * first 128 are the filter's header. Larger filters are split into shards.
	 */
	public static final long MAX_SHARD_BITS = (1L << 32) - BloomLayout.HEADER_BITS;

	private static final double LN2 = Math.log(2);

	/**
	 * Validates the spec.
	 * @throws InvalidSpecException naming the component and the reason
	 */
	public BloomFilterSpec {
		if (expectedInsertions < 1) {
			throw new InvalidSpecException("expectedInsertions", "must be at least 1, was " + expectedInsertions);
		}
		if (expectedInsertions > MAX_EXPECTED_INSERTIONS) {
			throw new InvalidSpecException("expectedInsertions", "must be at most " + MAX_EXPECTED_INSERTIONS
					+ ", was " + expectedInsertions);
		}
		if (!(falsePositiveRate >= MIN_FALSE_POSITIVE_RATE && falsePositiveRate < 1)) {
			throw new InvalidSpecException("falsePositiveRate", "must be at least " + MIN_FALSE_POSITIVE_RATE
					+ " and below 1, such as 0.01, was " + falsePositiveRate);
		}
		if (ttl != null && ttl.compareTo(Duration.ofMillis(1)) < 0) {
			throw new InvalidSpecException("ttl", "must be at least 1ms, was " + ttl);
		}
		Expiry.requireAtMostMax("ttl", ttl);
		long bits = bits(expectedInsertions, falsePositiveRate);
		if (bits > MAX_BITS) {
			throw new InvalidSpecException("expectedInsertions", "of " + expectedInsertions + " at a rate of "
					+ falsePositiveRate + " needs " + bits + " bits, more than the " + MAX_BITS
					+ " (2^40) a filter may take; lower it or raise the false-positive rate");
		}
		if (ttl != null && bits > MAX_SHARD_BITS) {
			throw new InvalidSpecException("ttl", "cannot apply to a filter of " + bits
					+ " bits: filters above 2^32 bits are split into shards that would expire one by one; leave it"
					+ " unset or size the filter smaller");
		}
	}

	/**
	 * A filter that lives for ever.
	 * @param expectedInsertions the items it is sized for
	 * @param falsePositiveRate the false-positive rate at that fill, such as {@code 0.01}
	 * @return the spec
	 */
	public static BloomFilterSpec of(long expectedInsertions, double falsePositiveRate) {
		return new BloomFilterSpec(expectedInsertions, falsePositiveRate, null);
	}

	/**
	 * @param ttl how long the filter lives from its first insertion; then it starts over empty
	 * @return a copy with that ttl
	 */
	public BloomFilterSpec withTtl(@Nullable Duration ttl) {
		return new BloomFilterSpec(this.expectedInsertions, this.falsePositiveRate, ttl);
	}

	/** @return m, the bits of the filter: ceil(-n ln p / (ln 2)^2) */
	public long bits() {
		return bits(this.expectedInsertions, this.falsePositiveRate);
	}

	/** @return k, the hash functions (bits set per item): round(m / n ln 2), at least 1 */
	public int hashes() {
		return (int) Math.max(1, Math.round((double) bits() / this.expectedInsertions * LN2));
	}

	private static long bits(long n, double p) {
		return (long) Math.ceil(-n * Math.log(p) / (LN2 * LN2));
	}

}
