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
 * <p>
 * With a {@code growth}, the filter grows past its expected insertions instead of losing its rate: it is a
 * scalable filter of {@link BloomGrowth layers}, the first sized for {@code expectedInsertions} at
 * {@code falsePositiveRate * (1 - tightening)}, each next one larger and tighter, all in one hash slot.
 *
 * <pre>{@code
 * BloomFilterSpec spec = BloomFilterSpec.of(1_000_000, 0.01).withTtl(Duration.ofDays(30));
 * BloomFilterSpec growing = BloomFilterSpec.of(100_000, 0.01).withGrowth(BloomGrowth.DEFAULT);
 * }</pre>
 *
 * @param expectedInsertions n, the items the filter is sized for, from 1 to {@link #MAX_EXPECTED_INSERTIONS}
 * @param falsePositiveRate p, the false-positive rate at n items, above 0 ({@link #MIN_FALSE_POSITIVE_RATE} at
 * least) and below 1
 * @param ttl how long the filter lives from its creation (its first insertion), from 1 ms to
 * {@link Expiry#MAX 100 years}; {@code null} for ever
 * @param growth how the filter grows past its expected insertions; {@code null} for a filter that does not (its
 * rate rises as more items go in). Each of its {@code maxLayers} layers must fit in one Redis string
 */
public record BloomFilterSpec(long expectedInsertions, double falsePositiveRate, @Nullable Duration ttl,
		@Nullable BloomGrowth growth) {

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
		if (growth != null) {
			checkLayers(expectedInsertions, falsePositiveRate, growth);
		}
	}

	/**
	 * A filter that does not grow.
	 * @param expectedInsertions n
	 * @param falsePositiveRate p at n items
	 * @param ttl how long it lives, {@code null} for ever
	 */
	public BloomFilterSpec(long expectedInsertions, double falsePositiveRate, @Nullable Duration ttl) {
		this(expectedInsertions, falsePositiveRate, ttl, null);
	}

	/** Every layer a growth may add must be sizable, and fit in one string: the layers share one hash slot. */
	private static void checkLayers(long expectedInsertions, double falsePositiveRate, BloomGrowth growth) {
		for (int i = 0; i < growth.maxLayers(); i++) {
			double capacity = expectedInsertions * Math.pow(growth.factor(), i);
			double rate = layerRate(falsePositiveRate, growth, i);
			String layer = "layer " + (i + 1) + " of " + growth.maxLayers();
			if (capacity > MAX_EXPECTED_INSERTIONS || rate < MIN_FALSE_POSITIVE_RATE
					|| bits((long) capacity, rate) > MAX_SHARD_BITS) {
				throw new InvalidSpecException("growth.maxLayers", "must be at most " + i + " for "
						+ expectedInsertions + " expected insertions at a rate of " + falsePositiveRate + ": " + layer
						+ " (" + (long) capacity + " items at a rate of " + rate
						+ ") would not fit in one Redis string of 2^32 bits; lower maxLayers, the growth factor or"
						+ " the expected insertions");
			}
		}
	}

	/**
	 * A filter that lives for ever.
	 * @param expectedInsertions the items it is sized for
	 * @param falsePositiveRate the false-positive rate at that fill, such as {@code 0.01}
	 * @return the spec
	 */
	public static BloomFilterSpec of(long expectedInsertions, double falsePositiveRate) {
		return new BloomFilterSpec(expectedInsertions, falsePositiveRate, null, null);
	}

	/**
	 * @param ttl how long the filter lives from its first insertion; then it starts over empty
	 * @return a copy with that ttl
	 */
	public BloomFilterSpec withTtl(@Nullable Duration ttl) {
		return new BloomFilterSpec(this.expectedInsertions, this.falsePositiveRate, ttl, this.growth);
	}

	/**
	 * @param growth how the filter grows past its expected insertions; {@code null} for not at all
	 * @return a copy with that growth
	 */
	public BloomFilterSpec withGrowth(@Nullable BloomGrowth growth) {
		return new BloomFilterSpec(this.expectedInsertions, this.falsePositiveRate, this.ttl, growth);
	}

	/** @return m, the bits of the filter: ceil(-n ln p / (ln 2)^2) */
	public long bits() {
		return bits(this.expectedInsertions, this.falsePositiveRate);
	}

	/** @return k, the hash functions (bits set per item): round(m / n ln 2), at least 1 */
	public int hashes() {
		return (int) Math.max(1, Math.round((double) bits() / this.expectedInsertions * LN2));
	}

	/**
	 * @param falsePositiveRate the filter's rate
	 * @param growth its growth
	 * @param layer from 0
	 * @return the rate a layer is sized for: p (1 - r) r<sup>layer</sup>, so that all layers add up to at most p
	 */
	static double layerRate(double falsePositiveRate, BloomGrowth growth, int layer) {
		return falsePositiveRate * (1 - growth.tightening()) * Math.pow(growth.tightening(), layer);
	}

	static long bits(long n, double p) {
		return (long) Math.ceil(-n * Math.log(p) / (LN2 * LN2));
	}

}
