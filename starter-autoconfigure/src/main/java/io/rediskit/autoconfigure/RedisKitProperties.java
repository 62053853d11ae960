package io.rediskit.autoconfigure;

import java.time.Duration;

import io.rediskit.autoconfigure.support.Durations;
import io.rediskit.support.RedisAvailability;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * Settings every redis-kit primitive shares, under {@code redis-kit}.
 */
@ConfigurationProperties("redis-kit")
public class RedisKitProperties implements Validator {

	/**
	 * Prefix of every Redis key redis-kit writes; must not contain braces.
	 */
	private String keyPrefix = "rk:";

	/**
	 * What redis-kit does once a call finds Redis unavailable.
	 */
	private final Outage outage = new Outage();

	public String getKeyPrefix() {
		return this.keyPrefix;
	}

	public void setKeyPrefix(String keyPrefix) {
		this.keyPrefix = keyPrefix;
	}

	public Outage getOutage() {
		return this.outage;
	}

	@Override
	public boolean supports(Class<?> type) {
		return RedisKitProperties.class.isAssignableFrom(type);
	}

	@Override
	public void validate(Object target, Errors errors) {
		String prefix = ((RedisKitProperties) target).getKeyPrefix();
		if (prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0) {
			errors.rejectValue("keyPrefix", "braces",
					"redis-kit.key-prefix must not contain '{' or '}': they would move keys to other hash slots");
		}
		Duration probeInterval = ((RedisKitProperties) target).getOutage().getProbeInterval();
		if (probeInterval.isNegative() || probeInterval.isZero()
				|| probeInterval.compareTo(RedisAvailability.MAX_PROBE_INTERVAL) > 0) {
			errors.rejectValue("outage.probeInterval", "range", "redis-kit.outage.probe-interval must be from 1ms to "
					+ Durations.format(RedisAvailability.MAX_PROBE_INTERVAL) + " (calls resume about one interval after"
					+ " Redis does), was " + Durations.format(probeInterval));
		}
	}

	/**
	 * Settings of the gate that refuses calls at once while Redis is known to be unavailable.
	 */
	public static class Outage {

		/**
		 * Whether calls are refused at once, each area applying its outage policy, after a call found Redis
		 * unavailable and until Redis answers a PING; off, every call waits for Redis up to the command timeout.
		 */
		private boolean enabled = true;

		/**
		 * Time from the outage found, and from each unanswered PING, to the next PING; calls go to Redis again
		 * as soon as one is answered. At most 1m.
		 */
		private Duration probeInterval = Duration.ofSeconds(1);

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public Duration getProbeInterval() {
			return this.probeInterval;
		}

		public void setProbeInterval(Duration probeInterval) {
			this.probeInterval = probeInterval;
		}

	}

}
