package io.rediskit.autoconfigure.lock;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

import io.rediskit.autoconfigure.support.PropertyChecks;
import io.rediskit.latch.LatchSpec;
import io.rediskit.lock.LockSpec;
import io.rediskit.lock.RedlockSpec;
import io.rediskit.lock.WaiterLineSpec;
import io.rediskit.support.InvalidSpecException;
import io.rediskit.support.Names;
import io.rediskit.support.ReplicaWait;

/**
 * The lock family's specs from {@code redis-kit.lock} and its members' groups, each checked when its registry is
 * built: the rules are the specs' constructors', and a fault fails startup naming the property. An application
 * that defines a {@link io.rediskit.lock.LockRegistry} of its own keeps the configured settings with
 * {@link #lock(LockProperties)}.
 */
public final class LockSpecs {

	private static final String PREFIX = "redis-kit.lock.";

	private LockSpecs() {
	}

	/**
	 * @param lock the settings of {@code redis-kit.lock}
	 * @return the lock's spec
	 * @throws io.rediskit.autoconfigure.support.InvalidPropertiesException naming the property at fault
	 */
	public static LockSpec lock(LockProperties lock) {
		return checked(lock, PREFIX, () -> {
			LockProperties.ReplicaWait settings = lock.getReplicaWait();
			ReplicaWait wait;
			try {
				wait = new ReplicaWait(settings.getReplicas(), settings.getTimeout(), settings.getOnShortfall());
			}
			catch (InvalidSpecException ex) {
				throw new InvalidSpecException("replicaWait." + ex.getComponent(), ex.getReason());
			}
			return new LockSpec(lock.getWatchdogTimeout(), lock.getDefaultLeaseTime(), lock.getDefaultWaitTime(),
					lock.getMaxPollInterval(), wait);
		});
	}

	static LockSpec semaphore(SemaphoreProperties semaphore) {
		return checked(semaphore, PREFIX + "semaphore.", () -> new LockSpec(semaphore.getWatchdogTimeout(),
				semaphore.getDefaultLeaseTime(), semaphore.getDefaultWaitTime(), semaphore.getMaxPollInterval()));
	}

	static LatchSpec latch(LatchProperties latch) {
		return checked(latch, PREFIX + "latch.",
				() -> new LatchSpec(latch.getAbandonedAfter(), latch.getOpenFor(), latch.getMaxPollInterval()));
	}

	/**
	 * @param line the settings of the fair lock or the read-write lock
	 * @param prefix {@code redis-kit.lock.fair.} or {@code redis-kit.lock.read-write.}
	 */
	static WaiterLineSpec waiterLine(WaiterLineProperties line, String prefix) {
		return checked(line, prefix, () -> new WaiterLineSpec(line.getWatchdogTimeout(), line.getDefaultLeaseTime(),
				line.getDefaultWaitTime(), line.getMaxPollInterval(), line.getWaiterTimeout()));
	}

	static RedlockSpec redlock(RedlockProperties redlock) {
		return checked(redlock, PREFIX + "redlock.", () -> new RedlockSpec(redlock.getNodeTimeout(),
				redlock.getWatchdogTimeout(), redlock.getDefaultLeaseTime(), redlock.getDefaultWaitTime(),
				redlock.getClockDriftFactor(), redlock.getClockDriftMargin(), redlock.getRetryDelay(),
				redlock.getRetryJitter()));
	}

	/**
	 * The Redlock nodes, each a server of its own, and the timeouts of their connections. A fault never shows the
	 * URL: it may carry a password.
	 */
	static List<RedlockNodeUrl> redlockNodes(RedlockProperties redlock) {
		String prefix = PREFIX + "redlock.";
		PropertyChecks checks = new PropertyChecks();
		Map<String, Integer> seen = new HashMap<>();
		List<String> nodes = redlock.getNodes();
		for (int i = 0; i < nodes.size(); i++) {
			String property = prefix + "nodes[" + i + "]";
			try {
				RedlockNodeUrl node = RedlockNodeUrl.parse(nodes.get(i));
				Integer first = seen.putIfAbsent(node.address() + "/" + node.database(), i);
				if (first != null) {
					checks.rejectHidden(property, property + " names the same server as " + prefix + "nodes[" + first
							+ "]: a majority needs independent servers");
				}
			}
			catch (IllegalArgumentException ex) {
				checks.rejectHidden(property, property + " " + ex.getMessage());
			}
		}
		requirePositive(checks, prefix + "connect-timeout", redlock.getConnectTimeout());
		requirePositive(checks, prefix + "command-timeout", redlock.getCommandTimeout());
		checks.throwIfInvalid();
		return nodes.stream().map(RedlockNodeUrl::parse).toList();
	}

	/**
	 * Checks the leader election's settings.
	 * @throws io.rediskit.autoconfigure.support.InvalidPropertiesException naming every property at fault
	 */
	static void leader(LeaderProperties leader) {
		String prefix = PREFIX + "leader.";
		PropertyChecks checks = new PropertyChecks();
		Duration retry = leader.getRetryInterval();
		if (retry.toMillis() < 1) {
			checks.reject(prefix + "retry-interval", retry,
					prefix + "retry-interval must be at least 1ms, was " + PropertyChecks.text(retry));
		}
		String name = leader.getInstanceName();
		if (name != null && !Names.isValid(name)) {
			checks.reject(prefix + "instance-name", name,
					prefix + "instance-name must be " + Names.RULE + ", was '" + name + "'");
		}
		List<String> roles = leader.getRoles();
		for (int i = 0; i < roles.size(); i++) {
			String role = roles.get(i);
			if (role == null || !Names.isValid(role)) {
				checks.reject(prefix + "roles[" + i + "]", role, prefix + "roles[" + i + "] must be " + Names.RULE
						+ ", was '" + ((role != null) ? role : "") + "'");
			}
		}
		checks.throwIfInvalid();
	}

	private static void requirePositive(PropertyChecks checks, String property, Duration value) {
		if (value.isNegative() || value.isZero()) {
			checks.reject(property, value, property + " must be positive, was " + PropertyChecks.text(value));
		}
	}

	private static <S> S checked(Object properties, String prefix, Supplier<S> toSpec) {
		PropertyChecks checks = new PropertyChecks();
		S spec = checks.spec(properties, prefix, toSpec);
		checks.throwIfInvalid();
		return Objects.requireNonNull(spec);
	}

}
