package io.rediskit.lock;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.concurrent.ConcurrentTaskScheduler;

/**
 * The background work of one {@link RedlockRegistry}: a scheduler for the watchdog and the retries of
 * asynchronous waiters, and an executor for calls to nodes that did not answer their last call (opening a
 * connection blocks, and must not happen on the driver's threads). Nothing runs before {@link #start()}, called by the registry's lifecycle or on a lock's
 * first acquisition; {@link #stop()} stops what this class created and leaves a scheduler the application gave
 * running. Defaults: one daemon scheduler thread, which never blocks on Redis, and a cached pool of daemon threads
 * that is only used while a node is down.
 */
final class RedlockBackground {

	private enum State {

		STOPPED, RUNNING, CLOSED

	}

	private final RedlockWatchdog watchdog;

	private final RedlockNodes nodes;

	private @Nullable Executor givenExecutor;

	private @Nullable ExecutorService ownExecutor;

	private final ReentrantLock lock = new ReentrantLock();

	private @Nullable TaskScheduler givenScheduler;

	private @Nullable ScheduledExecutorService ownScheduler;

	private volatile @Nullable TaskScheduler scheduler;

	private volatile State state = State.STOPPED;

	private final Set<Runnable> stopHooks = ConcurrentHashMap.newKeySet();

	RedlockBackground(RedlockWatchdog watchdog, RedlockNodes nodes) {
		this.watchdog = watchdog;
		this.nodes = nodes;
	}

	void setExecutor(@Nullable Executor executor) {
		this.lock.lock();
		try {
			if (this.state != State.STOPPED) {
				throw new IllegalStateException("The executor of a Redlock registry must be set before it starts");
			}
			this.givenExecutor = executor;
		}
		finally {
			this.lock.unlock();
		}
	}

	void setScheduler(@Nullable TaskScheduler scheduler) {
		this.lock.lock();
		try {
			if (this.state != State.STOPPED) {
				throw new IllegalStateException("The task scheduler of a Redlock registry must be set before it starts");
			}
			this.givenScheduler = scheduler;
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
				throw new IllegalStateException("The Redlock registry is closed");
			}
			if (this.state == State.RUNNING) {
				return;
			}
			TaskScheduler current = this.givenScheduler;
			if (current == null) {
				this.ownScheduler = Executors.newSingleThreadScheduledExecutor((runnable) -> {
					Thread thread = new Thread(runnable, "redis-kit-redlock-scheduler");
					thread.setDaemon(true);
					return thread;
				});
				current = new ConcurrentTaskScheduler(this.ownScheduler);
			}
			Executor executor = this.givenExecutor;
			if (executor == null) {
				// Threads only while a node is down (its calls may open a connection), reused, gone when idle.
				this.ownExecutor = Executors.newCachedThreadPool((runnable) -> {
					Thread thread = new Thread(runnable, "redis-kit-redlock-connect");
					thread.setDaemon(true);
					return thread;
				});
				executor = this.ownExecutor;
			}
			this.nodes.setExecutor(executor);
			this.scheduler = current;
			this.watchdog.start(current);
			this.state = State.RUNNING;
		}
		finally {
			this.lock.unlock();
		}
	}

	void stop() {
		this.lock.lock();
		try {
			stopRunning();
		}
		finally {
			this.lock.unlock();
		}
	}

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
		if (this.ownScheduler != null) {
			this.ownScheduler.shutdownNow();
			this.ownScheduler = null;
		}
		this.nodes.setExecutor(null);
		if (this.ownExecutor != null) {
			this.ownExecutor.shutdown();
			this.ownExecutor = null;
		}
		this.scheduler = null;
		List<Runnable> hooks = List.copyOf(this.stopHooks);
		this.stopHooks.clear();
		hooks.forEach(Runnable::run);
	}

	/** Registers a task to run on {@link #stop()}: an asynchronous waiter ends its wait there. */
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
	 * @throws IllegalStateException if the registry is not running
	 */
	ScheduledFuture<?> schedule(Runnable task, long delayNanos) {
		TaskScheduler current = this.scheduler;
		if (current == null || this.state != State.RUNNING) {
			throw new IllegalStateException("The Redlock registry is "
					+ ((this.state == State.CLOSED) ? "closed" : "stopped"));
		}
		return current.schedule(task, current.getClock().instant().plus(Duration.ofNanos(delayNanos)));
	}

}
