package io.rediskit.support;

import java.time.Duration;
import java.time.Instant;

/**
 * A write was refused because what it writes to would already have expired: a check-in into a month, or a
 * member into a counter's bucket, that ended longer ago than the spec's retention. Redis would delete the key
 * as it is written, so the write is refused instead of reporting a success that was never kept. The script
 * decides on the server's clock and writes nothing when it refuses; the synchronous call throws this, the
 * asynchronous one completes exceptionally with it.
 */
public class RetentionPassedException extends IllegalArgumentException {

	private static final long serialVersionUID = 1L;

	private final String target;

	private final Duration retention;

	private final Instant expiredAt;

	/**
	 * @param what the primitive and its name, such as {@code Check-in calendar 'daily'}
	 * @param target what the write was for, such as {@code a check-in on 2024-02-29 (month 2024-02)}
	 * @param retention the spec's retention
	 * @param expiredAt when that data expired: its period's end plus the retention
	 */
	public RetentionPassedException(String what, String target, Duration retention, Instant expiredAt) {
		super(what + ": " + target + " is past the retention of " + describe(retention) + " (kept until " + expiredAt
				+ " by the Redis server's clock); nothing was written. Write only data newer than the retention, or"
				+ " give the spec a longer retention");
		this.target = target;
		this.retention = retention;
		this.expiredAt = expiredAt;
	}

	/** @return what the write was for, such as {@code a check-in on 2024-02-29 (month 2024-02)} */
	public String getTarget() {
		return this.target;
	}

	/** @return the spec's retention */
	public Duration getRetention() {
		return this.retention;
	}

	/** @return when the data the write was for expired */
	public Instant getExpiredAt() {
		return this.expiredAt;
	}

	/** Whole days as {@code 400d}, as the properties are written, other durations as ISO-8601. */
	private static String describe(Duration retention) {
		return (retention.toSeconds() % 86_400 == 0 && retention.getNano() == 0) ? retention.toDays() + "d"
				: retention.toString();
	}

}
