package io.rediskit.counter;

import java.time.Duration;
import java.time.ZoneId;
import java.util.Objects;

import io.rediskit.support.Expiry;
import io.rediskit.support.InvalidSpecException;
import org.jspecify.annotations.Nullable;

/**
 * How a unique counter buckets time: {@code bucket} size in {@code zone}, each bucket kept for
 * {@code retention} after it ends, and range counts cached for {@code rangeCacheTtl}.
 *
 * <pre>{@code
 * UniqueCounterSpec spec = UniqueCounterSpec.daily(ZoneId.of("Europe/Paris")).withRetention(Duration.ofDays(90));
 * }</pre>
 *
 * @param bucket hourly or daily
 * @param zone the time zone buckets follow; explicit, never the JVM's default
 * @param retention how long a bucket is kept after its end, from 1 s to {@link Expiry#MAX 100 years}; {@code null}
 * for ever. An add into a bucket already past it is refused ({@link io.rediskit.support.RetentionPassedException})
 * @param rangeCacheTtl how long the merge of a range is kept and reused by counts of the same range, from 1 ms to
 * 1 hour: a member added meanwhile shows in that range's count after at most this long
 */
public record UniqueCounterSpec(BucketSize bucket, ZoneId zone, @Nullable Duration retention, Duration rangeCacheTtl) {

	/** Range cache TTL used unless one is given. */
	public static final Duration DEFAULT_RANGE_CACHE_TTL = Duration.ofSeconds(10);

	/**
	 * Validates the spec.
	 * @throws InvalidSpecException naming the component and the reason
	 */
	public UniqueCounterSpec {
		Objects.requireNonNull(bucket, "bucket must not be null");
		Objects.requireNonNull(zone, "zone must not be null");
		Objects.requireNonNull(rangeCacheTtl, "rangeCacheTtl must not be null");
		if (retention != null && retention.compareTo(Duration.ofSeconds(1)) < 0) {
			throw new InvalidSpecException("retention", "must be at least 1s, was " + retention);
		}
		Expiry.requireAtMostMax("retention", retention);
		if (rangeCacheTtl.compareTo(Duration.ofMillis(1)) < 0 || rangeCacheTtl.compareTo(Duration.ofHours(1)) > 0) {
			throw new InvalidSpecException("rangeCacheTtl", "must be from 1ms to 1h, was " + rangeCacheTtl);
		}
	}

	/**
	 * Daily buckets kept for ever.
	 * @param zone the zone whose calendar days are buckets
	 * @return the spec
	 */
	public static UniqueCounterSpec daily(ZoneId zone) {
		return new UniqueCounterSpec(BucketSize.DAILY, zone, null, DEFAULT_RANGE_CACHE_TTL);
	}

	/**
	 * Hourly buckets kept for ever.
	 * @param zone the zone whose hours are buckets
	 * @return the spec
	 */
	public static UniqueCounterSpec hourly(ZoneId zone) {
		return new UniqueCounterSpec(BucketSize.HOURLY, zone, null, DEFAULT_RANGE_CACHE_TTL);
	}

	/**
	 * @param retention how long a bucket is kept after its end
	 * @return a copy with that retention
	 */
	public UniqueCounterSpec withRetention(@Nullable Duration retention) {
		return new UniqueCounterSpec(this.bucket, this.zone, retention, this.rangeCacheTtl);
	}

	/**
	 * @param rangeCacheTtl how long a range's merge is reused
	 * @return a copy with that TTL
	 */
	public UniqueCounterSpec withRangeCacheTtl(Duration rangeCacheTtl) {
		return new UniqueCounterSpec(this.bucket, this.zone, this.retention, rangeCacheTtl);
	}

}
