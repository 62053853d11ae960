package io.rediskit.recent;

import java.time.Duration;
import java.util.Objects;

import io.rediskit.support.Expiry;
import io.rediskit.support.InvalidSpecException;

/**
 * What one list of recent items keeps: up to {@code capacity} items per user, forgotten {@code idleTtl} after the
 * user's last view, and a trending count over {@code trendingPeriod} in {@code trendingBuckets} buckets, read
 * through a union cached for {@code trendingCacheTtl}.
 *
 * <pre>{@code
 * RecentItemsSpec spec = RecentItemsSpec.of(20).withIdleTtl(Duration.ofDays(30)).withTrending(Duration.ofHours(1), 12);
 * }</pre>
 *
 * @param capacity the most items a user's list keeps, from 1 to 1 000; a view past it drops the oldest
 * @param idleTtl how long a user's list is kept after the user's last view, from 1 s to 100 years
 * @param trendingPeriod the sliding period trending counts views over, from 1 s to 100 years
 * @param trendingBuckets how many buckets the period is counted in, from 1 to 1 000: the count covers the current
 * bucket and the ones before it, so it slides in steps of {@code trendingPeriod / trendingBuckets}
 * @param trendingCacheTtl how long the union of the buckets is reused by readers, from 1 ms to 1 h
 */
public record RecentItemsSpec(int capacity, Duration idleTtl, Duration trendingPeriod, int trendingBuckets,
		Duration trendingCacheTtl) {

	/** Idle TTL used unless one is given. */
	public static final Duration DEFAULT_IDLE_TTL = Duration.ofDays(30);

	/** Trending period used unless one is given. */
	public static final Duration DEFAULT_TRENDING_PERIOD = Duration.ofHours(1);

	/** Trending buckets used unless given. */
	public static final int DEFAULT_TRENDING_BUCKETS = 12;

	/** Trending cache TTL used unless one is given. */
	public static final Duration DEFAULT_TRENDING_CACHE_TTL = Duration.ofSeconds(1);

	/**
	 * Validates the spec.
	 * @throws InvalidSpecException naming the component and the reason
	 */
	public RecentItemsSpec {
		Objects.requireNonNull(idleTtl, "idleTtl must not be null");
		Objects.requireNonNull(trendingPeriod, "trendingPeriod must not be null");
		Objects.requireNonNull(trendingCacheTtl, "trendingCacheTtl must not be null");
		if (capacity < 1 || capacity > 1000) {
			throw new InvalidSpecException("capacity", "must be from 1 to 1000, was " + capacity);
		}
		if (idleTtl.compareTo(Duration.ofSeconds(1)) < 0) {
			throw new InvalidSpecException("idleTtl", "must be at least 1s, was " + idleTtl);
		}
		Expiry.requireAtMostMax("idleTtl", idleTtl);
		if (trendingPeriod.compareTo(Duration.ofSeconds(1)) < 0) {
			throw new InvalidSpecException("trendingPeriod", "must be at least 1s, was " + trendingPeriod);
		}
		Expiry.requireAtMostMax("trendingPeriod", trendingPeriod);
		if (trendingBuckets < 1 || trendingBuckets > 1000) {
			throw new InvalidSpecException("trendingBuckets", "must be from 1 to 1000, was " + trendingBuckets);
		}
		if (trendingPeriod.toMillis() % trendingBuckets != 0) {
			throw new InvalidSpecException("trendingBuckets", "must divide the trending period (" + trendingPeriod
					+ ") into whole milliseconds, was " + trendingBuckets);
		}
		if (trendingCacheTtl.compareTo(Duration.ofMillis(1)) < 0
				|| trendingCacheTtl.compareTo(Duration.ofHours(1)) > 0) {
			throw new InvalidSpecException("trendingCacheTtl", "must be from 1ms to 1h, was " + trendingCacheTtl);
		}
	}

	/**
	 * A list of {@code capacity} items per user with the default idle TTL and trending.
	 * @param capacity the most items per user
	 * @return the spec
	 */
	public static RecentItemsSpec of(int capacity) {
		return new RecentItemsSpec(capacity, DEFAULT_IDLE_TTL, DEFAULT_TRENDING_PERIOD, DEFAULT_TRENDING_BUCKETS,
				DEFAULT_TRENDING_CACHE_TTL);
	}

	/**
	 * @param idleTtl how long a user's list is kept after the last view
	 * @return a copy with that TTL
	 */
	public RecentItemsSpec withIdleTtl(Duration idleTtl) {
		return new RecentItemsSpec(this.capacity, idleTtl, this.trendingPeriod, this.trendingBuckets,
				this.trendingCacheTtl);
	}

	/**
	 * @param trendingPeriod the period trending counts over
	 * @param trendingBuckets in how many buckets
	 * @return a copy with that trending
	 */
	public RecentItemsSpec withTrending(Duration trendingPeriod, int trendingBuckets) {
		return new RecentItemsSpec(this.capacity, this.idleTtl, trendingPeriod, trendingBuckets, this.trendingCacheTtl);
	}

	/**
	 * @param trendingCacheTtl how long the trending union is reused
	 * @return a copy with that TTL
	 */
	public RecentItemsSpec withTrendingCacheTtl(Duration trendingCacheTtl) {
		return new RecentItemsSpec(this.capacity, this.idleTtl, this.trendingPeriod, this.trendingBuckets,
				trendingCacheTtl);
	}

	/** @return the length of one trending bucket in ms */
	long bucketMillis() {
		return this.trendingPeriod.toMillis() / this.trendingBuckets;
	}

}
