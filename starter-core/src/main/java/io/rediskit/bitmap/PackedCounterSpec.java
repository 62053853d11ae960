package io.rediskit.bitmap;

import io.rediskit.support.InvalidSpecException;

/**
 * Packed counters: each counter {@code width} bits, {@code signed} or not, in one Redis string per key, with an
 * explicit {@link Overflow} mode and a bound on the string's size.
 *
 * @param width bits per counter: 1 to 64 signed, 1 to 63 unsigned (Redis's limits)
 * @param signed whether counters go below zero
 * @param overflow what an increment past the range does
 * @param maxBits the most bits a key may grow to; an index beyond refuses before Redis: a user id used as an
 * index near 2<sup>32</sup> would otherwise allocate 512 MB. From 1 to 2<sup>32</sup>
 */
public record PackedCounterSpec(int width, boolean signed, Overflow overflow, long maxBits) {

	/** Bound used unless one is given: 2<sup>23</sup> bits, a 1 MiB string. */
	public static final long DEFAULT_MAX_BITS = 1L << 23;

	/**
	 * Validates the spec.
	 * @throws InvalidSpecException naming the component and the reason
	 */
	public PackedCounterSpec {
		if (overflow == null) {
			throw new InvalidSpecException("overflow", "must be chosen: WRAP, SAT or FAIL");
		}
		int max = signed ? 64 : 63;
		if (width < 1 || width > max) {
			throw new InvalidSpecException("width", "must be from 1 to " + max + " for " + (signed ? "signed" : "unsigned")
					+ " counters, was " + width);
		}
		if (maxBits < width || maxBits > (1L << 32)) {
			throw new InvalidSpecException("maxBits", "must be from the width (" + width + ") to 2^32, was " + maxBits);
		}
	}

	/**
	 * Unsigned counters of a width, bounded to {@link #DEFAULT_MAX_BITS}.
	 * @param width bits per counter, 1 to 63
	 * @param overflow what an increment past the range does
	 * @return the spec
	 */
	public static PackedCounterSpec unsigned(int width, Overflow overflow) {
		return new PackedCounterSpec(width, false, overflow, DEFAULT_MAX_BITS);
	}

	/**
	 * Signed counters of a width, bounded to {@link #DEFAULT_MAX_BITS}.
	 * @param width bits per counter, 1 to 64
	 * @param overflow what an increment past the range does
	 * @return the spec
	 */
	public static PackedCounterSpec signed(int width, Overflow overflow) {
		return new PackedCounterSpec(width, true, overflow, DEFAULT_MAX_BITS);
	}

	/**
	 * @param maxBits the most bits a key may grow to
	 * @return a copy with that bound
	 */
	public PackedCounterSpec withMaxBits(long maxBits) {
		return new PackedCounterSpec(this.width, this.signed, this.overflow, maxBits);
	}

	/** @return the counters a key holds: maxBits / width */
	public long capacity() {
		return this.maxBits / this.width;
	}

	/** @return the smallest value a counter holds */
	public long min() {
		return this.signed ? ((this.width == 64) ? Long.MIN_VALUE : -(1L << (this.width - 1))) : 0;
	}

	/** @return the largest value a counter holds */
	public long max() {
		return this.signed ? ((this.width == 64) ? Long.MAX_VALUE : (1L << (this.width - 1)) - 1) : (1L << this.width) - 1;
	}

	/** @return the BITFIELD type, such as {@code u8} or {@code i16} */
	String type() {
		return (this.signed ? "i" : "u") + this.width;
	}

}
