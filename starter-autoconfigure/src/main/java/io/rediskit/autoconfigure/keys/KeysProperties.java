package io.rediskit.autoconfigure.keys;

import java.time.Duration;

import io.rediskit.autoconfigure.support.SpecErrors;
import io.rediskit.keys.BigKeyOptions;
import io.rediskit.keys.KeyScanOptions;
import io.rediskit.support.InvalidSpecException;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * Key-space tool settings, under {@code redis-kit.keys}. Validated when bound, by the rules of
 * {@link BigKeyOptions} and {@link KeyScanOptions}: an out-of-range value fails startup naming the property,
 * as does a property that binds to nothing.
 */
@ConfigurationProperties(prefix = "redis-kit.keys", ignoreUnknownFields = false)
public class KeysProperties implements Validator {

	private static final String PREFIX = "redis-kit.keys.";

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

	@Override
	public boolean supports(Class<?> type) {
		return KeysProperties.class.isAssignableFrom(type);
	}

	/**
	 * Validates the report's settings by building its options, whose constructors hold the rules: a bad value
	 * fails startup here rather than every call of the endpoint.
	 */
	@Override
	public void validate(Object target, Errors errors) {
		errors.pushNestedPath("report");
		try {
			((KeysProperties) target).getReport().toOptions();
		}
		catch (InvalidSpecException ex) {
			// The options' components are named as the report's fields, so the property follows from them.
			SpecErrors.reject(errors, PREFIX + "report.", ex);
		}
		errors.popNestedPath();
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

		/**
		 * The options of a report over these settings, built anew on each call.
		 * @return the options: every type, the prefix up to the first {@code :}, duplicates removed
		 * @throws InvalidSpecException naming the field at fault if a value is out of range (startup validation
		 * prevents it)
		 */
		public BigKeyOptions toOptions() {
			KeyScanOptions scan = new KeyScanOptions(this.pattern, null, this.batchSize, this.keysPerSecond,
					Duration.ZERO, true);
			return new BigKeyOptions(scan, this.top, this.samples, ':');
		}

	}

}
