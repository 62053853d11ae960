package io.rediskit.lock;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.locks.ReentrantLock;

import io.rediskit.support.Background;
import org.jspecify.annotations.Nullable;

/**
 * The background lifecycle of one registry, whatever its engine: the watchdog, what the {@link Engine} runs (the
 * single-node engines' pub/sub subscriptions, the quorum engine's calls to nodes that may have to connect) and the
 * timers of asynchronous waits, all on the registry's {@link Background}: the application's, shared by every
 * primitive, or one of the registry's own ({@link Background#standalone(String)}), created on the first start and
 * closed with the registry. Nothing runs before {@link #start()}, called by the registry's lifecycle or on a lock's
 * first acquisition; {@link #stop()} stops what was started and leaves the threads to their owner.
 */
final class LockBackground {

	private enum State {

		STOPPED, RUNNING, CLOSED

	}

	private final String kind;

	private final LockWatchdog watchdog;

	private final Engine engine;

	// Starting may subscribe: a ReentrantLock, not synchronized, keeps virtual threads unpinned.
	private final ReentrantLock lock = new ReentrantLock();

	private @Nullable Background given;

	private @Nullable Background own;

	private volatile @Nullable Background background;

	private volatile State state = State.STOPPED;

	private final Set<Runnable> stopHooks = ConcurrentHashMap.newKeySet();

	/**
	 * @param kind the registry's kind in thread names and messages: {@code lock} or {@code Redlock}
	 */
	LockBackground(String kind, LockWatchdog watchdog, Engine engine) {
		this.kind = kind;
		this.watchdog = watchdog;
		this.engine = engine;
	}

	void setBackground(@Nullable Background background) {
		this.lock.lock();
		try {
			if (this.state != State.STOPPED) {
				throw new IllegalStateException(
						"The background of a " + this.kind + " registry must be set before it starts");
			}
			this.given = background;
		}
		finally {
			this.lock.unlock();
		}
	}

	/** Starts unless running: the first acquisition of a registry that no container started. */
	void ensureRunning() {
		if (this.state != State.RUNNING) {
			start();
		}
	}

	void start() {
		this.lock.lock();
		try {
			if (this.state == State.CLOSED) {
				throw new IllegalStateException("The " + this.kind + " registry is closed");
			}
			if (this.state == State.RUNNING) {
				return;
			}
			Background current = this.given;
			if (current == null) {
				if (this.own == null) {
					this.own = Background.standalone(this.kind.toLowerCase(Locale.ROOT));
				}
				current = this.own;
			}
			this.background = current;
			this.engine.start(current);
			this.watchdog.start(current.scheduler());
			this.state = State.RUNNING;
		}
		finally {
			this.lock.unlock();
		}
	}

	/** Stops what was started; held locks are not released, and a later acquisition starts again. */
	void stop() {
		this.lock.lock();
		try {
			stopRunning();
		}
		finally {
			this.lock.unlock();
		}
	}

	/** Stops for good, and closes the threads of the registry's own: a later acquisition fails. */
	void close() {
		this.lock.lock();
		try {
			stopRunning();
			this.state = State.CLOSED;
			if (this.own != null) {
				this.own.close();
				this.own = null;
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	private void stopRunning() {
		if (this.state != State.RUNNING) {
			return;
		}
		this.state = State.STOPPED;
		this.watchdog.stop();
		this.engine.stop();
		List<Runnable> hooks = List.copyOf(this.stopHooks);
		this.stopHooks.clear();
		hooks.forEach(Runnable::run);
	}

	/**
	 * Registers a task to run on {@link #stop()}: an asynchronous waiter ends its wait there, since its timer
	 * and its wake-up stop with the watchdog and the subscription.
	 */
	void onStop(Runnable hook) {
		this.stopHooks.add(hook);
	}

	void removeOnStop(Runnable hook) {
		this.stopHooks.remove(hook);
	}

	boolean isRunning() {
		return this.state == State.RUNNING;
	}

	/**
	 * Runs a task once after a delay, on the scheduler.
	 * @return the scheduled task, to cancel
	 */
	ScheduledFuture<?> schedule(Runnable task, long delayNanos) {
		Background current = this.background;
		if (current == null || this.state != State.RUNNING) {
			throw new IllegalStateException("The " + this.kind + " registry is "
					+ ((this.state == State.CLOSED) ? "closed" : "stopped"));
		}
		return current.schedule(task, Duration.ofNanos(delayNanos));
	}

}
