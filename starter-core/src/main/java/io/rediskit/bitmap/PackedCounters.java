package io.rediskit.bitmap;

import java.util.OptionalLong;
import java.util.concurrent.CompletionStage;

/**
 * Many small counters packed in one Redis string per key (such as per user, a u8 per hour of the week), over
 * {@code BITFIELD} with the spec's explicit {@link Overflow} mode: counter {@code index} of a key is the
 * {@code width}-bit field at {@code index * width}. Keys are {@code <prefix>bitmap:{<name>:<key>}:packed}. Every
 * call is one command.
 * <p>
 * Indexes are checked before Redis: negative ones, and any whose field would end beyond the spec's
 * {@link PackedCounterSpec#maxBits() bound}, are refused with {@link IllegalArgumentException}, as are values
 * outside the counter's range.
 */
public interface PackedCounters {

	/** @return the counters' name */
	String name();

	/** @return their spec */
	PackedCounterSpec spec();

	/**
	 * Adds to a counter ({@code BITFIELD key OVERFLOW <mode> INCRBY <type> #<index> <delta>}).
	 * @param key whose counters, such as a user id; data
	 * @param index which counter, from 0 to {@link PackedCounterSpec#capacity()} - 1
	 * @param delta what to add; may be negative
	 * @return the new value; empty when the mode is {@link Overflow#FAIL} and the increment would overflow (the
	 * counter is unchanged)
	 */
	OptionalLong incrementBy(String key, long index, long delta);

	/**
	 * Reads a counter ({@code BITFIELD_RO}); one never written reads 0.
	 * @param key whose counters
	 * @param index which counter
	 * @return its value
	 */
	long get(String key, long index);

	/**
	 * Sets a counter.
	 * @param key whose counters
	 * @param index which counter
	 * @param value the value, within the counter's range
	 * @return the old value
	 */
	long set(String key, long index, long value);

	/**
	 * {@link #incrementBy(String, long, long)} without blocking.
	 * @param key whose counters
	 * @param index which counter
	 * @param delta what to add
	 * @return the new value, or empty on a refused overflow
	 */
	CompletionStage<OptionalLong> incrementByAsync(String key, long index, long delta);

}
