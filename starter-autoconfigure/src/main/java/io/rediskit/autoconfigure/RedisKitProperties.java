package io.rediskit.autoconfigure;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings every redis-kit primitive shares, under {@code redis-kit}.
 */
@ConfigurationProperties("redis-kit")
public class RedisKitProperties {

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
