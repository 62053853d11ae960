package io.rediskit.lock;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;

import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.concurrent.ConcurrentTaskScheduler;

/**
 * The background work of one registry, whatever its engine: a scheduler (watchdog ticks, the retries of
 * asynchronous waiters), an executor for work that may block (the single-node engine's pub/sub subscriptions,
 * the quorum engine's calls to nodes that may have to connect) and what the {@link Engine} runs. Nothing runs
 * before {@link #start()}, called by the registry's lifecycle or on a lock's first acquisition, and everything
 * this class created is stopped by {@link #stop()}; what the application gave is left running.
 * <p>
 * Defaults: one daemon scheduler thread, which never blocks on Redis; for blocking work a new thread per task,
 * virtual on Java 21 and later.
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

	private @Nullable TaskScheduler givenScheduler;

	private @Nullable Executor givenExecutor;

	private @Nullable ScheduledExecutorService ownScheduler;

	private volatile @Nullable TaskScheduler scheduler;

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

	void setScheduler(@Nullable TaskScheduler scheduler) {
		this.lock.lock();
		try {
			requireStopped("task scheduler");
			this.givenScheduler = scheduler;
		}
		finally {
			this.lock.unlock();
		}
	}

	void setExecutor(@Nullable Executor executor) {
		this.lock.lock();
		try {
			requireStopped("subscription executor");
			this.givenExecutor = executor;
		}
		finally {
			this.lock.unlock();
		}
	}

	private void requireStopped(String what) {
		if (this.state != State.STOPPED) {
			throw new IllegalStateException(
					"The " + what + " of a " + this.kind + " registry must be set before it starts");
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
			TaskScheduler scheduler = this.givenScheduler;
			if (scheduler == null) {
				this.ownScheduler = Executors.newSingleThreadScheduledExecutor((runnable) -> {
					Thread thread = new Thread(runnable,
							"redis-kit-" + this.kind.toLowerCase(Locale.ROOT) + "-scheduler");
					thread.setDaemon(true);
					return thread;
				});
				scheduler = new ConcurrentTaskScheduler(this.ownScheduler);
			}
			Executor executor = (this.givenExecutor != null) ? this.givenExecutor : defaultExecutor(this.kind);
			this.scheduler = scheduler;
			this.engine.start(executor);
			this.watchdog.start(scheduler);
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

	/** Stops for good: a later acquisition fails. */
	void close() {
		this.lock.lock();
		try {
			stopRunning();
			this.state = State.CLOSED;
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
		if (this.ownScheduler != null) {
			this.ownScheduler.shutdownNow();
			this.ownScheduler = null;
		}
		List<Runnable> hooks = List.copyOf(this.stopHooks);
		this.stopHooks.clear();
		hooks.forEach(Runnable::run);
	}

	/**
	 * Registers a task to run on {@link #stop()}: an asynchronous waiter ends its wait there, since its timer
	 * and its wake-up stop with the scheduler and the subscription.
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
		TaskScheduler current = running(this.scheduler);
		return current.schedule(task, current.getClock().instant().plus(Duration.ofNanos(delayNanos)));
	}

	private <T> T running(@Nullable T resource) {
		if (resource == null || this.state != State.RUNNING) {
			throw new IllegalStateException("The " + this.kind + " registry is "
					+ ((this.state == State.CLOSED) ? "closed" : "stopped"));
		}
		return resource;
	}

	private static Executor defaultExecutor(String kind) {
		SimpleAsyncTaskExecutor executor = new SimpleAsyncTaskExecutor("redis-kit-" + kind.toLowerCase(Locale.ROOT) + "-");
		executor.setDaemon(true);
		if (Runtime.version().feature() >= 21) {
			executor.setVirtualThreads(true);
		}
		return executor;
	}

}
