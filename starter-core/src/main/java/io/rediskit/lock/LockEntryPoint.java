package io.rediskit.lock;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.BiFunction;

import io.rediskit.support.KeyNaming;
import io.rediskit.support.Listeners;
import io.rediskit.support.ThrottledLog;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.TaskScheduler;

/**
 * What the entry points of the lock share, written once: the shell (holds, background lifecycle, watchdog,
 * listeners) wired around an {@link Engine}, the handles it hands out, the held locks and the lifecycle. A
 * registry subclass only builds its engine and adds its own settings.
 * <p>
 * Handles are cheap, so {@code getLock} returns a new one each time and keeps no cache: client memory is bounded
 * by the locks held and waited for at a time, however many names are used.
 */
abstract class LockEntryPoint implements Locks, SmartLifecycle, AutoCloseable {

	private final KeyNaming keyNaming;

	private final LockWatchdog watchdog;

	private final LockParts parts;

	/**
	 * @param kind the registry's kind, in thread names, metrics' area and messages
	 * @param outageWarning what the throttled warning says while Redis cannot be reached
	 * @param engine builds the engine on the registry's guarded listeners and outage log
	 */
	LockEntryPoint(String kind, KeyNaming keyNaming, Duration watchdogTimeout, @Nullable Duration defaultLeaseTime,
			Duration defaultWaitTime, List<? extends LockListener> listeners, Clock clock, String outageWarning,
			BiFunction<Listeners<LockListener>, ThrottledLog, Engine> engine) {
		this.keyNaming = Objects.requireNonNull(keyNaming, "keyNaming must not be null");
		Objects.requireNonNull(clock, "clock must not be null");
		Listeners<LockListener> guarded = Listeners.of(kind.toLowerCase(Locale.ROOT), listeners);
		ThrottledLog outages = new ThrottledLog(LogFactory.getLog(getClass()),
				Duration.ofSeconds(LockRegistry.OUTAGE_LOG_INTERVAL_SECONDS), outageWarning);
		Engine built = engine.apply(guarded, outages);
		LockHolds holds = new LockHolds(guarded, clock);
		this.watchdog = new LockWatchdog(holds, guarded, outages, watchdogTimeout);
		LockBackground background = new LockBackground(kind, this.watchdog, built);
		this.parts = new LockParts(watchdogTimeout, defaultLeaseTime, defaultWaitTime, built, holds, background,
				guarded, outages);
	}

	/**
	 * Gives the scheduler the watchdog and the retries of asynchronous waiters run on, instead of a daemon
	 * thread of the registry's own. Its tasks never block on Redis. Set it before the registry starts.
	 * @param taskScheduler the application's scheduler, or {@code null} for the default
	 * @throws IllegalStateException if the registry has started
	 */
	public void setTaskScheduler(@Nullable TaskScheduler taskScheduler) {
		this.parts.background().setScheduler(taskScheduler);
	}

	@Override
	public RedisLock getLock(String name) {
		requireName(name);
		return newLock(name, name);
	}

	@Override
	public RedisLock getLock(String group, String key) {
		requireName(group);
		Objects.requireNonNull(key, "key");
		return newLock(group + ":" + key, group);
	}

	private RedisLock newLock(String name, String group) {
		return new RedisLock(name, group, keys(name, group), this.parts);
	}

	/**
	 * The keys of a lock this entry point hands out; a member of the family whose keys live in an area of its
	 * own (a fair lock's, a read-write lock's) overrides it.
	 */
	LockScripts.Keys keys(String name, String group) {
		return LockScripts.Keys.of(this.keyNaming, name, group);
	}

	@Override
	public List<HeldLock> heldLocks() {
		return this.parts.holds().describe();
	}

	@Override
	public Duration defaultWaitTime() {
		return this.parts.defaultWaitTime();
	}

	@Override
	public Duration minimumLeaseTime() {
		return this.parts.engine().minimumLeaseTime();
	}

	/** @return the key naming this registry uses */
	public KeyNaming getKeyNaming() {
		return this.keyNaming;
	}

	/** Starts the watchdog, the scheduler and what the engine runs; does nothing when running. */
	@Override
	public void start() {
		this.parts.background().start();
	}

	/**
	 * Stops the watchdog, the scheduler (unless the application gave it) and what the engine runs. Held locks are
	 * not released: their leases run out unless the registry starts again. Asynchronous acquisitions still
	 * waiting complete exceptionally with {@link IllegalStateException}; waiting threads poll. A later
	 * acquisition starts the registry again.
	 */
	@Override
	public void stop() {
		this.parts.background().stop();
	}

	@Override
	public boolean isRunning() {
		return this.parts.background().isRunning();
	}

	@Override
	public int getPhase() {
		return LockRegistry.PHASE;
	}

	/** Stops for good, as {@link #stop()} does; a later acquisition fails with {@link IllegalStateException}. */
	@Override
	public void close() {
		this.parts.background().close();
	}

	LockParts parts() {
		return this.parts;
	}

	/** Runs one watchdog round now, for tests. */
	void renewNow() {
		this.watchdog.renewAll();
	}

	private static void requireName(String name) {
		Objects.requireNonNull(name, "name");
		if (name.isEmpty()) {
			throw new IllegalArgumentException("Lock name must not be empty");
		}
	}

}
