package io.rediskit.autoconfigure.lock;

import java.time.Duration;

import io.rediskit.lock.LockSpec;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * Distributed lock settings, under {@code redis-kit.lock}. Validated when bound: an out-of-range value fails
 * startup with a message that names the property.
 */
@ConfigurationProperties("redis-kit.lock")
public class LockProperties implements Validator {

	/**
	 * Whether to auto-configure the distributed lock.
	 */
	private boolean enabled = true;

	/**
	 * Lease of locks taken without a lease time; the watchdog renews it every third of this while the owner
	 * holds the lock.
	 */
	private Duration watchdogTimeout = Duration.ofSeconds(30);

	/**
	 * How long @DistributedLock and RedisLock.acquire() wait when they name no wait time; 0 makes a single
	 * attempt.
	 */
	private Duration defaultWaitTime = Duration.ofSeconds(10);

	/**
	 * Lease of locks taken without a lease time, not renewed; unset to use watchdog-renewed leases.
	 */
	private @Nullable Duration defaultLeaseTime;

	/**
	 * Longest a waiter sleeps between attempts when no release notification arrives.
	 */
	private Duration maxPollInterval = Duration.ofSeconds(1);

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Duration getWatchdogTimeout() {
		return this.watchdogTimeout;
	}

	public void setWatchdogTimeout(Duration watchdogTimeout) {
		this.watchdogTimeout = watchdogTimeout;
	}

	public Duration getDefaultWaitTime() {
		return this.defaultWaitTime;
	}

	public void setDefaultWaitTime(Duration defaultWaitTime) {
		this.defaultWaitTime = defaultWaitTime;
	}

	public @Nullable Duration getDefaultLeaseTime() {
		return this.defaultLeaseTime;
	}

	public void setDefaultLeaseTime(@Nullable Duration defaultLeaseTime) {
		this.defaultLeaseTime = defaultLeaseTime;
	}

	public Duration getMaxPollInterval() {
		return this.maxPollInterval;
	}

	public void setMaxPollInterval(Duration maxPollInterval) {
		this.maxPollInterval = maxPollInterval;
	}

	/** @return the core settings these properties describe */
	public LockSpec toSpec() {
		return new LockSpec(this.watchdogTimeout, this.defaultLeaseTime, this.defaultWaitTime, this.maxPollInterval);
	}

	@Override
	public boolean supports(Class<?> type) {
		return LockProperties.class.isAssignableFrom(type);
	}

	@Override
	public void validate(Object target, Errors errors) {
		LockProperties properties = (LockProperties) target;
		requireAtLeastOneMilli(errors, "watchdogTimeout", "watchdog-timeout", properties.getWatchdogTimeout());
		requireAtLeastOneMilli(errors, "maxPollInterval", "max-poll-interval", properties.getMaxPollInterval());
		if (properties.getDefaultLeaseTime() != null) {
			requireAtLeastOneMilli(errors, "defaultLeaseTime", "default-lease-time", properties.getDefaultLeaseTime());
		}
		if (properties.getDefaultWaitTime().isNegative()) {
			errors.rejectValue("defaultWaitTime", "negative",
					PREFIX + "default-wait-time must be zero (a single attempt) or positive, such as 10s");
		}
	}

	// The message names the property itself: the failure report shows the Java field name for YAML sources.
	private static void requireAtLeastOneMilli(Errors errors, String field, String property, Duration value) {
		if (value.isNegative() || value.toMillis() < 1) {
			errors.rejectValue(field, "positive", PREFIX + property + " must be positive (at least 1ms), such as 30s");
		}
	}

	private static final String PREFIX = "redis-kit.lock.";

}
