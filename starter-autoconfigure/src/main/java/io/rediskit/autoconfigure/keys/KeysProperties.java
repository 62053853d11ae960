package io.rediskit.autoconfigure.keys;

import io.rediskit.keys.BigKeyOptions;
import io.rediskit.keys.KeyScanOptions;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Key-space tool settings, under {@code redis-kit.keys}. Checked when the key tools are built, by the rules of
 * {@link BigKeyOptions} and {@link KeyScanOptions}: an out-of-range value fails startup naming the property,
 * as does a property that binds to nothing.
 */
@ConfigurationProperties(prefix = "redis-kit.keys", ignoreUnknownFields = false)
public class KeysProperties {


	/**
	 * Whether to auto-configure the key-space tools.
	 */
	private boolean enabled = true;

	/**
	 * The big-key report of the rediskitkeys actuator endpoint.
	 */
	private final Report report = new Report();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Report getReport() {
		return this.report;
	}

	/**
	 * What the rediskitkeys endpoint's report covers, and how fast it scans.
	 */
	public static class Report {

		/**
		 * SCAN MATCH pattern of the keys the report looks at.
		 */
		private String pattern = "*";

		/**
		 * How many keys each ranking keeps, from 1 to 10000.
		 */
		private int top = 10;

		/**
		 * SAMPLES of MEMORY USAGE: nested values sampled per collection, at least 0; 0 samples all (exact, slow on
		 * big keys).
		 */
		private int samples = 5;

		/**
		 * COUNT hint of each SCAN, from 1 to 10000.
		 */
		private int batchSize = 1000;

		/**
		 * Most keys the report scans per second, so it does not starve other clients, at least 0; 0 for no pacing.
		 */
		private long keysPerSecond = 20_000;

		public String getPattern() {
			return this.pattern;
		}

		public void setPattern(String pattern) {
			this.pattern = pattern;
		}

		public int getTop() {
			return this.top;
		}

		public void setTop(int top) {
			this.top = top;
		}

		public int getSamples() {
			return this.samples;
		}

		public void setSamples(int samples) {
			this.samples = samples;
		}

		public int getBatchSize() {
			return this.batchSize;
		}

		public void setBatchSize(int batchSize) {
			this.batchSize = batchSize;
		}

		public long getKeysPerSecond() {
			return this.keysPerSecond;
		}

		public void setKeysPerSecond(long keysPerSecond) {
			this.keysPerSecond = keysPerSecond;
		}

	}

}
