package io.rediskit.counter;

/**
 * The time buckets of a {@link UniqueCounter}, in the counter's time zone.
 */
public enum BucketSize {

	/** One bucket per hour of the zone's clock (by its UTC offset, so the repeated hour of a DST change is two). */
	HOURLY,

	/** One bucket per calendar day in the zone. */
	DAILY

}
