package io.rediskit.bitmap;

/**
 * What {@code BITFIELD INCRBY} does when a counter would leave its range. Chosen explicitly on every
 * {@link PackedCounterSpec}: Redis's own default, when a command names none, is {@link #WRAP}, which turns an
 * overflow into a silently wrong small number.
 */
public enum Overflow {

	/** Wraps around, modulo 2<sup>width</sup> (Redis's default): a u8 at 255 plus 1 is 0. */
	WRAP,

	/** Saturates at the minimum or maximum: a u8 at 255 plus 1 stays 255. */
	SAT,

	/** Refuses the increment and leaves the counter as it was; the call reports it. */
	FAIL

}
