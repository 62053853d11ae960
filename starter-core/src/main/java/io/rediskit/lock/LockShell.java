package io.rediskit.lock;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.BiFunction;

import io.rediskit.support.Observations;
import io.rediskit.support.Background;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.Listeners;
import io.rediskit.support.Names;
import io.rediskit.support.ThrottledLog;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * What every entry point of the lock family that holds leases shares, written once: the shell (holds and owner ids,
 * the watchdog, the background lifecycle, the guarded listeners and the outage log) wired around one
 * {@link Engine}, the lifecycle that starts and stops it, and the lock handles of the registries that hand out
 * {@link RedisLock}s. Each registry builds its own instance and gives it to its public base
 * ({@link LockFamilyRegistry}, {@link AbstractLockRegistry}), whose methods, written once, are the family's shared
 * public surface; users never meet this type. The engine keeps its own type ({@code E}), so that a registry asks
 * its engine for what only that engine has without casting through the seam.
 * <p>
 * Handles are cheap, so {@code getLock} returns a new one each time and keeps no cache: client memory is bounded
 * by the locks held and waited for at a time, however many names are used.
 */
final class LockShell<E extends Engine> {

	/** Where the keys of a lock of a name live, in a member's own key area or the lock's. */
	@FunctionalInterface
	interface KeysOf {

		LockScripts.Keys keys(KeyNaming keyNaming, String name, String group);

	}

	private final KeyNaming keyNaming;

	private final LockWatchdog watchdog;

	private final LockParts parts;

	private final E engine;

	private final KeysOf keys;

	/**
	 * @param owner the registry, whose logger reports outages
	 * @param kind the registry's kind, in thread names, metrics' area and messages
	 * @param outageWarning what the throttled warning says while Redis cannot be reached
	 * @param engine builds the engine on the registry's guarded listeners and outage log
	 * @param keys the keys of a lock the registry hands out
	 */
	LockShell(Class<?> owner, String kind, KeyNaming keyNaming, Duration watchdogTimeout,
			@Nullable Duration defaultLeaseTime, Duration defaultWaitTime, List<? extends LockListener> listeners,
			Clock clock, String outageWarning, BiFunction<Listeners<LockListener>, ThrottledLog, E> engine,
			KeysOf keys) {
		this.keyNaming = Objects.requireNonNull(keyNaming, "keyNaming must not be null");
		Objects.requireNonNull(clock, "clock must not be null");
		this.keys = keys;
		Listeners<LockListener> guarded = Listeners.of(kind.toLowerCase(Locale.ROOT), listeners);
		ThrottledLog outages = new ThrottledLog(LogFactory.getLog(owner),
				Duration.ofSeconds(LockRegistry.OUTAGE_LOG_INTERVAL_SECONDS), outageWarning);
		E built = engine.apply(guarded, outages);
		this.engine = built;
		LockObservations observations = new LockObservations(LockObservations.member(kind));
		LockHolds holds = new LockHolds(guarded, clock, observations);
		this.watchdog = new LockWatchdog(holds, guarded, outages, watchdogTimeout);
		LockBackground background = new LockBackground(kind, this.watchdog, built);
		this.parts = new LockParts(watchdogTimeout, defaultLeaseTime, defaultWaitTime, built, holds, background,
				guarded, outages, observations);
	}

	void setObservations(Observations observations) {
		this.parts.observations().set(observations);
	}

	void setBackground(@Nullable Background background) {
		this.parts.background().setBackground(background);
	}

	Duration defaultWaitTime() {
		return this.parts.defaultWaitTime();
	}

	KeyNaming getKeyNaming() {
		return this.keyNaming;
	}

	void start() {
		this.parts.background().start();
	}

	void stop() {
		this.parts.background().stop();
	}

	boolean isRunning() {
		return this.parts.background().isRunning();
	}

	void close() {
		this.parts.background().close();
	}

	RedisLock getLock(String name) {
		requireName(name, "Lock");
		return newLock(name, name);
	}

	RedisLock getLock(String group, String key) {
		requireName(group, "Lock");
		Objects.requireNonNull(key, "key");
		return newLock(group + ":" + key, group);
	}

	private RedisLock newLock(String name, String group) {
		return new RedisLock(name, group, this.keys.keys(this.keyNaming, name, group), this.parts);
	}

	List<HeldLock> heldLocks() {
		return this.parts.holds().describe();
	}

	Duration minimumLeaseTime() {
		return this.engine.minimumLeaseTime();
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
	 * Checks a name or group given in code: the family's names may be data ({@link Names#requireData}).
	 * @param what what is named, as the message says it ({@code Lock}, {@code Semaphore})
	 * @throws IllegalArgumentException if the name breaks the rule
	 */
	static void requireName(String name, String what) {
		Names.requireData(what, name);
	}

}
