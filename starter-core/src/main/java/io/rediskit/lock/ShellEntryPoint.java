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
 * What every entry point of the lock family that holds leases shares, written once: the shell (holds and owner
 * ids, the watchdog, the background lifecycle, the guarded listeners and the outage log) wired around one
 * {@link Engine}, and the lifecycle that starts and stops it. The engine keeps its own type ({@code E}), so that a
 * registry asks its engine for what only that engine has without casting through the seam. A subclass builds its engine and hands out its own
 * handles: the locks' entry points ({@link LockEntryPoint}) hand out {@link RedisLock}s, {@link SemaphoreRegistry}
 * hands out semaphores.
 */
abstract class ShellEntryPoint<E extends Engine> implements SmartLifecycle, AutoCloseable {

	private final KeyNaming keyNaming;

	private final LockWatchdog watchdog;

	private final LockParts parts;

	private final E engine;

	/**
	 * @param kind the registry's kind, in thread names, metrics' area and messages
	 * @param outageWarning what the throttled warning says while Redis cannot be reached
	 * @param engine builds the engine on the registry's guarded listeners and outage log
	 */
	ShellEntryPoint(String kind, KeyNaming keyNaming, Duration watchdogTimeout, @Nullable Duration defaultLeaseTime,
			Duration defaultWaitTime, List<? extends LockListener> listeners, Clock clock, String outageWarning,
			BiFunction<Listeners<LockListener>, ThrottledLog, E> engine) {
		this.keyNaming = Objects.requireNonNull(keyNaming, "keyNaming must not be null");
		Objects.requireNonNull(clock, "clock must not be null");
		Listeners<LockListener> guarded = Listeners.of(kind.toLowerCase(Locale.ROOT), listeners);
		ThrottledLog outages = new ThrottledLog(LogFactory.getLog(getClass()),
				Duration.ofSeconds(LockRegistry.OUTAGE_LOG_INTERVAL_SECONDS), outageWarning);
		E built = engine.apply(guarded, outages);
		this.engine = built;
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

	/** @return how long an acquisition that names no wait waits */
	public Duration defaultWaitTime() {
		return this.parts.defaultWaitTime();
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
	 * Stops the watchdog, the scheduler (unless the application gave it) and what the engine runs. Held locks and
	 * permits are not released: their leases run out unless the registry starts again. Asynchronous acquisitions
	 * still waiting complete exceptionally with {@link IllegalStateException}; waiting threads poll. A later
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

	/** @return the engine, as its own type: what a registry offers beyond the seam is asked of it, never cast */
	E engine() {
		return this.engine;
	}

	/** Runs one watchdog round now, for tests. */
	void renewNow() {
		this.watchdog.renewAll();
	}

	/**
	 * Sends the renewal of one hold now, as a watchdog round that picked it a moment ago would, whether or not the
	 * registry still has it: for tests of what a renewal answered after the hold changed means.
	 */
	void renewNow(LockHold hold) {
		this.watchdog.renew(hold);
	}

	/**
	 * @param what what is named, as the message says it ({@code Lock}, {@code Semaphore})
	 * @throws IllegalArgumentException if the name is empty
	 */
	static void requireName(String name, String what) {
		Objects.requireNonNull(name, "name");
		if (name.isEmpty()) {
			throw new IllegalArgumentException(what + " name must not be empty");
		}
	}

}
