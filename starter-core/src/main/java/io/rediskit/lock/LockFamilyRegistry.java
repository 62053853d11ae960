package io.rediskit.lock;

import java.time.Duration;
import java.util.Objects;

import io.rediskit.support.Background;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.Observations;
import io.rediskit.support.RedisKitObservation;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;

/**
 * What every registry of the lock family offers, written once: the lifecycle of its background work, the threads
 * it runs on, its key naming and its defaults. The registries of the family are exactly its subclasses:
 * {@link LockRegistry}, {@link RedlockRegistry}, {@link FairLockRegistry} and {@link ReadWriteLockRegistry}, which
 * hand out {@link RedisLock}s (through {@link AbstractLockRegistry}), and {@link SemaphoreRegistry}. Code that
 * manages any of them (starts, stops or gives threads to them) can be written against this type.
 * <p>
 * <b>Lifecycle.</b> The constructor of a registry starts nothing. {@link #start()} (called by the Spring container,
 * as a {@link SmartLifecycle}, in phase {@link LockRegistry#PHASE}) starts the background work: the watchdog, which
 * renews every lease of the registry every third of the watchdog timeout, and what the engine runs (the pub/sub
 * subscription that wakes waiters, where it has one). Used outside a container, a registry starts on its first
 * acquisition. {@link #stop()} stops that work and releases nothing: leases run out unless the registry starts
 * again. {@link #close()} stops it for good.
 * <p>
 * Each registry is an instance of the family's shell (holds and owner ids, watchdog, background lifecycle, guarded
 * listeners) around its own engine; this class only gives that shell's shared methods a type users can name.
 */
public abstract sealed class LockFamilyRegistry implements SmartLifecycle, AutoCloseable
		permits AbstractLockRegistry, SemaphoreRegistry {

	LockFamilyRegistry() {
	}

	/** @return the registry's shell, with its engine's own type: the family's tests and the registry ask it */
	abstract LockShell<?> shell();

	/**
	 * Gives the threads the registry's background work runs on: the watchdog and the timers of asynchronous waits
	 * on its scheduler (tasks that never block on Redis), opening the pub/sub connection and calls to nodes that
	 * may have to connect on its executor. Set it before the registry starts; the registry leaves it running.
	 * @param background the application's, shared by every primitive, or {@code null} for threads of the
	 * registry's own ({@link Background#standalone(String)}), closed with it
	 * @throws IllegalStateException if the registry has started
	 */
	public void setBackground(@Nullable Background background) {
		shell().setBackground(background);
	}

	/**
	 * Makes every wait for a lock of this registry ({@link RedisKitObservation#LOCK_WAIT}) and every hold, from the
	 * first acquisition to the last release ({@link RedisKitObservation#LOCK_HOLD}), an observation, tagged with the
	 * lock group's name and the member of the family. Applies to locks handed out before too.
	 * @param observations where the observations are made; {@link Observations#NOOP} (the default) for none
	 */
	public void setObservations(Observations observations) {
		shell().setObservations(Objects.requireNonNull(observations, "observations must not be null"));
	}

	/** @return how long an acquisition that names no wait waits */
	public Duration defaultWaitTime() {
		return shell().defaultWaitTime();
	}

	/** @return the shortest lease a call may ask for */
	public Duration minimumLeaseTime() {
		return shell().minimumLeaseTime();
	}

	/** @return the key naming this registry uses */
	public KeyNaming getKeyNaming() {
		return shell().getKeyNaming();
	}

	/** Starts the watchdog and what the engine runs; does nothing when running. */
	@Override
	public void start() {
		shell().start();
	}

	/**
	 * Stops the watchdog and what the engine runs (the threads are left to their owner). Held locks and permits are
	 * not released: their leases run out unless the registry starts again. Asynchronous acquisitions still waiting
	 * complete exceptionally with {@link IllegalStateException}; waiting threads poll. A later acquisition starts
	 * the registry again.
	 */
	@Override
	public void stop() {
		shell().stop();
	}

	/** @return whether the background work runs: between {@link #start()} and {@link #stop()} */
	@Override
	public boolean isRunning() {
		return shell().isRunning();
	}

	/** @return {@link LockRegistry#PHASE}, the same for every registry of the family */
	@Override
	public int getPhase() {
		return LockRegistry.PHASE;
	}

	/** Stops for good, as {@link #stop()} does; a later acquisition fails with {@link IllegalStateException}. */
	@Override
	public void close() {
		shell().close();
	}

}
