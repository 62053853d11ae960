package io.rediskit.autoconfigure.lock;

import java.time.Duration;

import io.rediskit.lock.LockSpec;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;

/**
 * Distributed lock settings, under {@code redis-kit.lock}. Checked when the registry is built, by the
 * rules of {@link io.rediskit.lock.LockSpec}: an out-of-range value fails startup with a message that names the
 * property.
 */
@ConfigurationProperties(prefix = "redis-kit.lock", ignoreUnknownFields = false)
public class LockProperties extends LockLeaseProperties {

	/**
	 * Whether to auto-configure the distributed lock.
	 */
	private boolean enabled = true;

	/**
	 * Whether methods annotated @DistributedLock or @ScheduledLock run without the lock while it is off
	 * (enabled=false); when false, such a method fails startup, naming it.
	 */
	private boolean unguardedWhenDisabled;

	/**
	 * Longest a waiter sleeps between attempts when no release notification arrives.
	 */
	private Duration maxPollInterval = Duration.ofSeconds(1);

	/**
	 * HTTP answers to calls that did not get their lock.
	 */
	private final Web web = new Web();

	/**
	 * Redlock over several independent Redis servers.
	 */
	@NestedConfigurationProperty
	private final RedlockProperties redlock = new RedlockProperties();

	/**
	 * Whether acquisitions and renewals wait for replicas (WAIT) before they count.
	 */
	private final ReplicaWait replicaWait = new ReplicaWait();

	/**
	 * Semaphores: named bounds on concurrent holders across instances.
	 */
	@NestedConfigurationProperty
	private final SemaphoreProperties semaphore = new SemaphoreProperties();

	/**
	 * Count-down latches across instances.
	 */
	@NestedConfigurationProperty
	private final LatchProperties latch = new LatchProperties();

	/**
	 * Read-write locks: many readers or one writer.
	 */
	@NestedConfigurationProperty
	private final ReadWriteLockProperties readWrite = new ReadWriteLockProperties();

	/**
	 * Fair locks: granted in arrival order.
	 */
	@NestedConfigurationProperty
	private final FairLockProperties fair = new FairLockProperties();

	/**
	 * Leader election: roles held by one instance at a time, as a lock's watchdog lease.
	 */
	@NestedConfigurationProperty
	private final LeaderProperties leader = new LeaderProperties();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public boolean isUnguardedWhenDisabled() {
		return this.unguardedWhenDisabled;
	}

	public void setUnguardedWhenDisabled(boolean unguardedWhenDisabled) {
		this.unguardedWhenDisabled = unguardedWhenDisabled;
	}

	public Duration getMaxPollInterval() {
		return this.maxPollInterval;
	}

	public void setMaxPollInterval(Duration maxPollInterval) {
		this.maxPollInterval = maxPollInterval;
	}

	public Web getWeb() {
		return this.web;
	}

	public RedlockProperties getRedlock() {
		return this.redlock;
	}

	public ReplicaWait getReplicaWait() {
		return this.replicaWait;
	}

	public SemaphoreProperties getSemaphore() {
		return this.semaphore;
	}

	public LatchProperties getLatch() {
		return this.latch;
	}

	public ReadWriteLockProperties getReadWrite() {
		return this.readWrite;
	}

	public FairLockProperties getFair() {
		return this.fair;
	}

	public LeaderProperties getLeader() {
		return this.leader;
	}

	/**
	 * Replica acknowledgement of lock writes: {@code WAIT replicas timeout} after each acquisition and renewal.
	 */
	public static class ReplicaWait {

		/**
		 * How many replicas must acknowledge an acquisition or renewal; 0 turns the wait off.
		 */
		private int replicas;

		/**
		 * How long the server waits for the replicas; keep it well below the command timeout.
		 */
		private Duration timeout = Duration.ofMillis(100);

		/**
		 * What an acquisition does when fewer replicas acknowledge: FAIL releases it and throws
		 * LockNotReplicatedException, ACCEPT keeps it and counts it in rediskit.lock.replica.shortfalls.
		 */
		private io.rediskit.support.ReplicaWait.Shortfall onShortfall = io.rediskit.support.ReplicaWait.Shortfall.FAIL;

		public int getReplicas() {
			return this.replicas;
		}

		public void setReplicas(int replicas) {
			this.replicas = replicas;
		}

		public Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(Duration timeout) {
			this.timeout = timeout;
		}

		public io.rediskit.support.ReplicaWait.Shortfall getOnShortfall() {
			return this.onShortfall;
		}

		public void setOnShortfall(io.rediskit.support.ReplicaWait.Shortfall onShortfall) {
			this.onShortfall = onShortfall;
		}

	}

	/**
	 * How web applications answer {@link io.rediskit.lock.LockNotAcquiredException}.
	 */
	public static class Web {

		/**
		 * Whether to answer LockNotAcquiredException with HTTP 409, or 503 when Redis could not be reached, and a
		 * problem detail in web applications.
		 */
		private boolean enabled = true;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

	}

}
