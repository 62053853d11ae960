package io.rediskit.counter;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/**
 * The buckets of a spec: which bucket holds an instant, when it ends, and the buckets of a range. Bucket names
 * are key suffixes: {@code d:2024-02-29} for a day, {@code h:2024-10-27T02:00+02:00} for an hour (with its UTC
 * offset, so the repeated hour of a DST change is two buckets).
 */
final class CounterBuckets {

	private static final DateTimeFormatter HOUR = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mmxxx");

	private final UniqueCounterSpec spec;

	CounterBuckets(UniqueCounterSpec spec) {
		this.spec = spec;
	}

	/** @return the start of the bucket holding an instant */
	ZonedDateTime start(Instant at) {
		ZonedDateTime local = at.atZone(this.spec.zone());
		return (this.spec.bucket() == BucketSize.DAILY) ? local.toLocalDate().atStartOfDay(this.spec.zone())
				: local.truncatedTo(ChronoUnit.HOURS);
	}

	/** @return the key suffix of the bucket starting at {@code start} */
	String name(ZonedDateTime start) {
		return (this.spec.bucket() == BucketSize.DAILY) ? "d:" + start.toLocalDate() : "h:" + HOUR.format(start);
	}

	/** @return when the bucket starting at {@code start} ends */
	Instant end(ZonedDateTime start) {
		return (this.spec.bucket() == BucketSize.DAILY)
				? start.toLocalDate().plusDays(1).atStartOfDay(this.spec.zone()).toInstant()
				: start.toInstant().plus(Duration.ofHours(1));
	}

	/** @return when the bucket starting at {@code start} expires, in ms since the epoch; 0 for never */
	long expiresAtMillis(ZonedDateTime start) {
		Duration retention = this.spec.retention();
		return (retention != null) ? end(start).plus(retention).toEpochMilli() : 0;
	}

	/**
	 * @param from an instant
	 * @param to a later instant
	 * @param max the most buckets allowed
	 * @return the names of the buckets from the one holding {@code from} to the one holding {@code to}
	 */
	List<String> range(Instant from, Instant to, int max) {
		if (to.isBefore(from)) {
			throw new IllegalArgumentException("to must not be before from, was " + from + " to " + to);
		}
		List<String> names = new ArrayList<>();
		ZonedDateTime last = start(to);
		for (ZonedDateTime bucket = start(from); !bucket.isAfter(last); bucket = start(end(bucket))) {
			if (names.size() == max) {
				throw new IllegalArgumentException("A range counts at most " + max + " buckets; " + from + " to " + to
						+ " spans more");
			}
			names.add(name(bucket));
		}
		return names;
	}

	/** @return the first and last instants of whole days in the zone */
	Instant[] days(LocalDate from, LocalDate to) {
		return new Instant[] { from.atStartOfDay(this.spec.zone()).toInstant(),
				to.plusDays(1).atStartOfDay(this.spec.zone()).toInstant().minusNanos(1) };
	}

}
