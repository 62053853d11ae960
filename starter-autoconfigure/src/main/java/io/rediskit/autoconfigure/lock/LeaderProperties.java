package io.rediskit.autoconfigure.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Leader election settings, under {@code redis-kit.lock.leader}: a member of the lock family like the semaphore,
 * the latch, the fair and the read-write lock, since a leadership is a lock held as a watchdog lease. The
 * leadership's lease is the lock's watchdog timeout ({@code redis-kit.lock.watchdog-timeout}). Checked when
 * the elections are built.
 */
public class LeaderProperties {

	/**
	 * Whether to auto-configure leader election (it needs the lock, redis-kit.lock.enabled).
	 */
	private boolean enabled = true;

	/**
	 * Roles this instance stands for at startup, each 1 to 64 letters, digits, '-' or '_'; more can be joined with
	 * LeaderElections#elect.
	 */
	private List<String> roles = new ArrayList<>();

	/**
	 * How often an instance that does not lead tries to; capped at a sixth of the lock's watchdog timeout.
	 */
	private Duration retryInterval = Duration.ofSeconds(1);

	/**
	 * Name this instance goes by in the election and the actuator, 1 to 64 letters, digits, '-' or '_'; unique to
	 * each instance: when unset, spring.application.name, host and process id, such as billing-web-7f9c-4121.
	 */
	private @Nullable String instanceName;

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public List<String> getRoles() {
		return this.roles;
	}

	public void setRoles(List<String> roles) {
		this.roles = roles;
	}

	public Duration getRetryInterval() {
		return this.retryInterval;
	}

	public void setRetryInterval(Duration retryInterval) {
		this.retryInterval = retryInterval;
	}

	public @Nullable String getInstanceName() {
		return this.instanceName;
	}

	public void setInstanceName(@Nullable String instanceName) {
		this.instanceName = instanceName;
	}

}
