package io.rediskit.autoconfigure.recent;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import io.rediskit.recent.RecentItemsSpec;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Recent items settings, under {@code redis-kit.recent-items}:
 *
 * <pre>{@code
 * redis-kit:
 *   recent-items:
 *     lists:
 *       viewed-products:
 *         capacity: 20
 *         idle-ttl: 30d
 *         trending-period: 1h
 *         trending-buckets: 12
 * }</pre>
 *
 * Checked when the registry is built, by the rules of {@link RecentItemsSpec} and {@link io.rediskit.support.Names}.
 */
@ConfigurationProperties(prefix = "redis-kit.recent-items", ignoreUnknownFields = false)
public class RecentProperties {

	/**
	 * Whether to auto-configure the recent items.
	 */
	private boolean enabled = true;

	/**
	 * Lists of recent items by name: letters, digits, '_' and '-', at most 64 characters, no '.'.
	 */
	private Map<String, ItemList> lists = new LinkedHashMap<>();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Map<String, ItemList> getLists() {
		return this.lists;
	}

	public void setLists(Map<String, ItemList> lists) {
		this.lists = lists;
	}

	/**
	 * One list of recent items.
	 */
	public static class ItemList {

		/**
		 * Most items a user's list keeps, from 1 to 1000; a view past it drops the oldest.
		 */
		private int capacity = 20;

		/**
		 * How long a user's list is kept after the user's last view, from 1s to 36500d (100 years).
		 */
		private Duration idleTtl = RecentItemsSpec.DEFAULT_IDLE_TTL;

		/**
		 * Sliding period the trending count covers, from 1s to 36500d (100 years).
		 */
		private Duration trendingPeriod = RecentItemsSpec.DEFAULT_TRENDING_PERIOD;

		/**
		 * Buckets the trending period is counted in, from 1 to 1000; the count slides in steps of one bucket.
		 */
		private int trendingBuckets = RecentItemsSpec.DEFAULT_TRENDING_BUCKETS;

		/**
		 * How long the trending union is reused by readers before the server computes it again, from 1ms to 1h.
		 */
		private Duration trendingCacheTtl = RecentItemsSpec.DEFAULT_TRENDING_CACHE_TTL;

		public int getCapacity() {
			return this.capacity;
		}

		public void setCapacity(int capacity) {
			this.capacity = capacity;
		}

		public Duration getIdleTtl() {
			return this.idleTtl;
		}

		public void setIdleTtl(Duration idleTtl) {
			this.idleTtl = idleTtl;
		}

		public Duration getTrendingPeriod() {
			return this.trendingPeriod;
		}

		public void setTrendingPeriod(Duration trendingPeriod) {
			this.trendingPeriod = trendingPeriod;
		}

		public int getTrendingBuckets() {
			return this.trendingBuckets;
		}

		public void setTrendingBuckets(int trendingBuckets) {
			this.trendingBuckets = trendingBuckets;
		}

		public Duration getTrendingCacheTtl() {
			return this.trendingCacheTtl;
		}

		public void setTrendingCacheTtl(Duration trendingCacheTtl) {
			this.trendingCacheTtl = trendingCacheTtl;
		}

	}

}
