package io.rediskit.autoconfigure.bloom;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import io.rediskit.bloom.BloomFilterSpec;
import io.rediskit.bloom.BloomGrowth;
import io.rediskit.bloom.BloomMode;
import io.rediskit.support.Names;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Bloom filter settings, under {@code redis-kit.bloom}. Each entry of {@code filters} is a filter that
 * {@link io.rediskit.bloom.BloomFilterRegistry#get(String)} finds by its name:
 *
 * <pre>{@code
 * redis-kit:
 *   bloom:
 *     filters:
 *       usernames:
 *         expected-insertions: 1000000
 *         false-positive-rate: 0.01
 * }</pre>
 *
 * Checked when the registry is built, by the rules of {@link BloomFilterSpec} and {@link Names}: a bad value fails
 * startup naming the property, as does a property that binds to nothing.
 */
@ConfigurationProperties(prefix = "redis-kit.bloom", ignoreUnknownFields = false)
public class BloomProperties {


	/**
	 * Whether to auto-configure the Bloom filters.
	 */
	private boolean enabled = true;

	/**
	 * Where filters keep their bits: auto (native BF.* filters when the server offers them and the filter has no
	 * ttl, else bitmaps), native or bitmap.
	 */
	private BloomMode mode = BloomMode.AUTO;

	/**
	 * Bloom filters by name: letters, digits, '_' and '-', at most 64 characters, no '.'.
	 */
	private Map<String, Filter> filters = new LinkedHashMap<>();

	/**
	 * Health indicator settings.
	 */
	private final Health health = new Health();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public BloomMode getMode() {
		return this.mode;
	}

	public void setMode(BloomMode mode) {
		this.mode = mode;
	}

	public Map<String, Filter> getFilters() {
		return this.filters;
	}

	public void setFilters(Map<String, Filter> filters) {
		this.filters = filters;
	}

	public Health getHealth() {
		return this.health;
	}

	/**
	 * One Bloom filter.
	 */
	public static class Filter {

		/**
		 * Items the filter is sized for, at least 1; required.
		 */
		private @Nullable Long expectedInsertions;

		/**
		 * False-positive rate at the expected insertions, from 1e-12 to below 1.
		 */
		private double falsePositiveRate = 0.01;

		/**
		 * How long the filter lives from its first insertion before it starts over empty, from 1ms to 36500d (100
		 * years); unset for ever.
		 */
		private @Nullable Duration ttl;

		/**
		 * Growth past the expected insertions (a scalable filter of layers), off unless enabled.
		 */
		private final Growth growth = new Growth();

		public @Nullable Long getExpectedInsertions() {
			return this.expectedInsertions;
		}

		public void setExpectedInsertions(@Nullable Long expectedInsertions) {
			this.expectedInsertions = expectedInsertions;
		}

		public double getFalsePositiveRate() {
			return this.falsePositiveRate;
		}

		public void setFalsePositiveRate(double falsePositiveRate) {
			this.falsePositiveRate = falsePositiveRate;
		}

		public @Nullable Duration getTtl() {
			return this.ttl;
		}

		public void setTtl(@Nullable Duration ttl) {
			this.ttl = ttl;
		}

		public Growth getGrowth() {
			return this.growth;
		}

	}

	/**
	 * How one Bloom filter grows past its expected insertions.
	 */
	public static class Growth {

		/**
		 * Whether the filter grows: a new, larger layer when the newest is full, keeping the false-positive rate.
		 */
		private boolean enabled;

		/**
		 * How many times larger each layer is than the one before, from 1 to 16.
		 */
		private int factor = BloomGrowth.DEFAULT.factor();

		/**
		 * Ratio of each layer's false-positive rate to the previous layer's, above 0 and below 1.
		 */
		private double tightening = BloomGrowth.DEFAULT.tightening();

		/**
		 * Most layers, from 1 to 32; an add past the last layer's capacity fails.
		 */
		private int maxLayers = BloomGrowth.DEFAULT.maxLayers();

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public int getFactor() {
			return this.factor;
		}

		public void setFactor(int factor) {
			this.factor = factor;
		}

		public double getTightening() {
			return this.tightening;
		}

		public void setTightening(double tightening) {
			this.tightening = tightening;
		}

		public int getMaxLayers() {
			return this.maxLayers;
		}

		public void setMaxLayers(int maxLayers) {
			this.maxLayers = maxLayers;
		}

	}

	/**
	 * How the rediskitbloom health indicator reports filters past their expected insertions.
	 */
	public static class Health {

		/**
		 * Health status reported while a filter holds more items than it is sized for (its false-positive rate is
		 * then above the configured one), such as UP (with the filters in the details) or OUT_OF_SERVICE.
		 */
		private String overCapacityStatus = "UP";

		public String getOverCapacityStatus() {
			return this.overCapacityStatus;
		}

		public void setOverCapacityStatus(String overCapacityStatus) {
			this.overCapacityStatus = overCapacityStatus;
		}

	}

}
