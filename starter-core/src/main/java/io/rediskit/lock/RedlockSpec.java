package io.rediskit.lock;

import java.time.Duration;

import io.rediskit.support.InvalidSpecException;
import org.jspecify.annotations.Nullable;

/**
 * How a {@link RedlockRegistry} times its locks.
 * <p>
 * <b>Validity.</b> An acquisition that took {@code elapsed} from its first request to its last reply holds the
 * lock for {@code lease - elapsed - drift}, where the clock-drift allowance is
 * {@code drift = lease x clockDriftFactor + clockDriftMargin} (by default 1 % of the lease plus 2 ms, as the
 * published Redlock algorithm proposes): the nodes' clocks may run faster than the client's, so their keys may
 * expire a little earlier than the client thinks. An acquisition whose validity is not positive counts as
 * failed. Every lease must be at least three node timeouts, so that a round of requests fits well inside it.
 *
 * @param nodeTimeout longest wait for one node's reply, much smaller than any lease: a node that is down or
 * paused costs this much, not the command timeout
 * @param watchdogTimeout lease of a lock taken without an explicit lease time; the watchdog renews it on every
 * node every third of this while the owner holds the lock
 * @param defaultLeaseTime lease of a lock taken without an explicit lease time, or {@code null} for the
 * watchdog
 * @param defaultWaitTime how long {@link RedisLock#acquire()} and {@code @DistributedLock(redlock = true)} wait
 * when they name no wait time; zero means a single attempt
 * @param clockDriftFactor part of the lease allowed for clock drift between client and nodes, from 0 to 0.5
 * @param clockDriftMargin fixed clock-drift allowance added to every lease's
 * @param retryDelay shortest pause before another attempt after one failed
 * @param retryJitter longest random extra pause, so that clients that failed together do not retry together; it
 * doubles after each round in a row whose votes were split between waiters, up to 8 times this
 */
public record RedlockSpec(Duration nodeTimeout, Duration watchdogTimeout, @Nullable Duration defaultLeaseTime,
		Duration defaultWaitTime, double clockDriftFactor, Duration clockDriftMargin, Duration retryDelay,
		Duration retryJitter) {

	/** Default {@link #nodeTimeout()}: 100 milliseconds. */
	public static final Duration DEFAULT_NODE_TIMEOUT = Duration.ofMillis(100);

	/** Default {@link #clockDriftFactor()}: 0.01 of the lease. */
	public static final double DEFAULT_CLOCK_DRIFT_FACTOR = 0.01;

	/** Default {@link #clockDriftMargin()}: 2 milliseconds. */
	public static final Duration DEFAULT_CLOCK_DRIFT_MARGIN = Duration.ofMillis(2);

	/** Default {@link #retryDelay()}: 50 milliseconds. */
	public static final Duration DEFAULT_RETRY_DELAY = Duration.ofMillis(50);

	/** Default {@link #retryJitter()}: 100 milliseconds. */
	public static final Duration DEFAULT_RETRY_JITTER = Duration.ofMillis(100);

	/**
	 * Validates the settings.
	 * @throws InvalidSpecException naming the setting that is out of range
	 * @throws NullPointerException if a setting other than {@code defaultLeaseTime} is missing
	 */
	public RedlockSpec {
		LockSpecChecks.requirePositive("nodeTimeout", nodeTimeout);
		LockSpecChecks.requireShared(watchdogTimeout, defaultLeaseTime, defaultWaitTime);
		if (!(clockDriftFactor >= 0 && clockDriftFactor <= 0.5)) {
			throw new InvalidSpecException("clockDriftFactor", "must be from 0 to 0.5, was " + clockDriftFactor);
		}
		LockSpecChecks.requireNotNegative("clockDriftMargin", clockDriftMargin);
		LockSpecChecks.requirePositive("retryDelay", retryDelay);
		LockSpecChecks.requireNotNegative("retryJitter", retryJitter);
		if (watchdogTimeout.compareTo(nodeTimeout.multipliedBy(3)) < 0) {
			throw new InvalidSpecException("watchdogTimeout",
					"must be at least three node timeouts (" + nodeTimeout.multipliedBy(3) + "), was " + watchdogTimeout);
		}
		if (defaultLeaseTime != null && defaultLeaseTime.compareTo(nodeTimeout.multipliedBy(3)) < 0) {
			throw new InvalidSpecException("defaultLeaseTime",
					"must be at least three node timeouts (" + nodeTimeout.multipliedBy(3) + "), was " + defaultLeaseTime);
		}
	}

	/**
	 * @return the defaults: 100 ms per node, 30 s watchdog, watchdog leases, 10 s wait, drift 1 % + 2 ms,
	 * retries after 50 ms plus up to 100 ms
	 */
	public static RedlockSpec defaults() {
		return new RedlockSpec(DEFAULT_NODE_TIMEOUT, LockSpec.DEFAULT_WATCHDOG_TIMEOUT, null,
				LockSpec.DEFAULT_WAIT_TIME, DEFAULT_CLOCK_DRIFT_FACTOR, DEFAULT_CLOCK_DRIFT_MARGIN, DEFAULT_RETRY_DELAY,
				DEFAULT_RETRY_JITTER);
	}

	/**
	 * The clock-drift allowance of one lease: {@code lease x clockDriftFactor + clockDriftMargin}.
	 * @param lease the lease
	 * @return the allowance
	 */
	public Duration clockDrift(Duration lease) {
		return Duration.ofNanos((long) (lease.toNanos() * this.clockDriftFactor)).plus(this.clockDriftMargin);
	}

	/**
	 * How long an acquisition or renewal holds the lock: {@code lease - elapsed - clockDrift(lease)}.
	 * @param lease the lease set on the nodes
	 * @param elapsed time from the first request of the round to its last reply needed
	 * @return the validity; zero or negative when the round took too long and does not count
	 */
	public Duration validity(Duration lease, Duration elapsed) {
		return lease.minus(elapsed).minus(clockDrift(lease));
	}

	/**
	 * Checks a lease asked for by a call.
	 * @param lease the lease
	 * @throws IllegalArgumentException if it is shorter than three node timeouts or longer than 100 years
	 */
	void requireLease(Duration lease) {
		if (lease.compareTo(this.nodeTimeout.multipliedBy(3)) < 0 || lease.compareTo(LockSpec.MAX_DURATION) > 0) {
			throw new IllegalArgumentException("leaseTime must be at least three node timeouts ("
					+ this.nodeTimeout.multipliedBy(3) + ") and at most 100 years, was " + lease);
		}
	}

	/**
	 * @param timeout the new node timeout
	 * @return a copy with that node timeout
	 */
	public RedlockSpec withNodeTimeout(Duration timeout) {
		return new RedlockSpec(timeout, this.watchdogTimeout, this.defaultLeaseTime, this.defaultWaitTime,
				this.clockDriftFactor, this.clockDriftMargin, this.retryDelay, this.retryJitter);
	}

	/**
	 * @param timeout the new watchdog timeout
	 * @return a copy with that watchdog timeout
	 */
	public RedlockSpec withWatchdogTimeout(Duration timeout) {
		return new RedlockSpec(this.nodeTimeout, timeout, this.defaultLeaseTime, this.defaultWaitTime,
				this.clockDriftFactor, this.clockDriftMargin, this.retryDelay, this.retryJitter);
	}

	/**
	 * @param leaseTime the new default lease, or {@code null} for the watchdog
	 * @return a copy with that default lease
	 */
	public RedlockSpec withDefaultLeaseTime(@Nullable Duration leaseTime) {
		return new RedlockSpec(this.nodeTimeout, this.watchdogTimeout, leaseTime, this.defaultWaitTime,
				this.clockDriftFactor, this.clockDriftMargin, this.retryDelay, this.retryJitter);
	}

	/**
	 * @param waitTime the new default wait
	 * @return a copy with that default wait
	 */
	public RedlockSpec withDefaultWaitTime(Duration waitTime) {
		return new RedlockSpec(this.nodeTimeout, this.watchdogTimeout, this.defaultLeaseTime, waitTime,
				this.clockDriftFactor, this.clockDriftMargin, this.retryDelay, this.retryJitter);
	}

	/**
	 * @param factor the new drift factor
	 * @param margin the new fixed drift allowance
	 * @return a copy with that clock-drift allowance
	 */
	public RedlockSpec withClockDrift(double factor, Duration margin) {
		return new RedlockSpec(this.nodeTimeout, this.watchdogTimeout, this.defaultLeaseTime, this.defaultWaitTime,
				factor, margin, this.retryDelay, this.retryJitter);
	}

	/**
	 * @param delay the new shortest pause between attempts
	 * @param jitter the new longest random extra pause
	 * @return a copy with those retry pauses
	 */
	public RedlockSpec withRetry(Duration delay, Duration jitter) {
		return new RedlockSpec(this.nodeTimeout, this.watchdogTimeout, this.defaultLeaseTime, this.defaultWaitTime,
				this.clockDriftFactor, this.clockDriftMargin, delay, jitter);
	}

}
