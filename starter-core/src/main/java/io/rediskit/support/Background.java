package io.rediskit.support;

import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;

import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.concurrent.ConcurrentTaskScheduler;

/**
 * The threads every redis-kit primitive runs its background work on: a {@link TaskScheduler} for short tasks that
 * never wait for Redis (watchdog ticks, poll timers, heartbeats, the retries of asynchronous waits, the availability
 * probe) and an {@link Executor} for work that may block (opening a pub/sub connection, a quorum call to a node that
 * has to connect). One instance is shared by every primitive of an application: the Spring Boot starter creates it
 * once, on the application's scheduler and {@code applicationTaskExecutor} (virtual threads when
 * {@code spring.threads.virtual.enabled} is on), and hands it to every registry.
 * <p>
 * Without Spring Boot, {@link #standalone(String)} gives a sensible default: one daemon scheduler thread and, for
 * blocking work, a new daemon thread per task (virtual on Java 21 and later), each created on first use, never in a
 * constructor. A registry given none makes one of these for itself and closes it with itself.
 * <p>
 * <b>Shutdown.</b> {@link #close()} stops only what this object created; a scheduler or executor the application
 * gave is the application's to stop (the starter's bean depends on them, so Spring destroys the registries first,
 * then this, then the application's threads). It never waits: its own scheduler is shut down at once, and tasks
 * still queued are dropped, since every user of it cancels its tasks in its own bounded stop first. Internal to
 * redis-kit: the public type of a bean and of the registries' setters, not an API of its own.
 */
public final class Background implements AutoCloseable {

	private final String name;

	private final @Nullable TaskScheduler givenScheduler;

	private final @Nullable Executor givenExecutor;

	// Creating the own threads may race between primitives: a ReentrantLock keeps virtual threads unpinned.
	private final ReentrantLock lock = new ReentrantLock();

	private @Nullable ScheduledThreadPoolExecutor ownScheduler;

	private volatile @Nullable TaskScheduler scheduler;

	private volatile @Nullable Executor executor;

	private volatile boolean closed;

	private Background(String name, @Nullable TaskScheduler scheduler, @Nullable Executor executor) {
		this.name = name;
		this.givenScheduler = scheduler;
		this.givenExecutor = executor;
	}

	/**
	 * Background work on an application's threads; what is not given is created on first use, as by
	 * {@link #standalone(String)}.
	 * @param scheduler the application's scheduler, or {@code null} for one daemon thread of this object's own
	 * @param executor the application's executor for blocking work, or {@code null} for a thread per task
	 * @return the background
	 */
	public static Background of(@Nullable TaskScheduler scheduler, @Nullable Executor executor) {
		return new Background("redis-kit", scheduler, executor);
	}

	/**
	 * Background work on threads of its own, created on first use: one daemon scheduler thread
	 * ({@code redis-kit-<owner>-scheduler}) and a new daemon thread per blocking task, virtual on Java 21 and later.
	 * @param owner the owner in the threads' names: {@code lock}, {@code queue}
	 * @return the background
	 */
	public static Background standalone(String owner) {
		return new Background("redis-kit-" + owner, null, null);
	}

	/**
	 * @return the scheduler of short, non-blocking tasks
	 * @throws IllegalStateException once closed
	 */
	public TaskScheduler scheduler() {
		TaskScheduler current = this.scheduler;
		if (current != null) {
			return current;
		}
		this.lock.lock();
		try {
			requireOpen();
			current = this.scheduler;
			if (current == null) {
				current = this.givenScheduler;
				if (current == null) {
					ScheduledThreadPoolExecutor own = new ScheduledThreadPoolExecutor(1, (runnable) -> {
						Thread thread = new Thread(runnable, this.name + "-scheduler");
						thread.setDaemon(true);
						return thread;
					});
					// Timers of waits that end early are cancelled by the thousand: drop them, not keep them queued.
					own.setRemoveOnCancelPolicy(true);
					this.ownScheduler = own;
					current = new ConcurrentTaskScheduler(own);
				}
				this.scheduler = current;
			}
			return current;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * @return the executor of work that may block
	 * @throws IllegalStateException once closed
	 */
	public Executor executor() {
		Executor current = this.executor;
		if (current != null) {
			return current;
		}
		this.lock.lock();
		try {
			requireOpen();
			current = this.executor;
			if (current == null) {
				current = this.givenExecutor;
				if (current == null) {
					SimpleAsyncTaskExecutor own = new SimpleAsyncTaskExecutor(this.name + "-");
					own.setDaemon(true);
					own.setVirtualThreads(Runtime.version().feature() >= 21);
					current = own;
				}
				this.executor = current;
			}
			return current;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Runs a task once after a delay on the scheduler.
	 * @param task the task, which must not block
	 * @param delay how long from now
	 * @return the scheduled task, to cancel
	 */
	public ScheduledFuture<?> schedule(Runnable task, Duration delay) {
		TaskScheduler current = scheduler();
		return current.schedule(task, current.getClock().instant().plus(delay));
	}

	/**
	 * Runs a task every period on the scheduler.
	 * @param task the task, which must not block
	 * @param initialDelay how long until the first run
	 * @param period the time between the starts of two runs
	 * @return the scheduled task, to cancel
	 */
	public ScheduledFuture<?> scheduleAtFixedRate(Runnable task, Duration initialDelay, Duration period) {
		TaskScheduler current = scheduler();
		return current.scheduleAtFixedRate(task, current.getClock().instant().plus(initialDelay), period);
	}

	/** @return whether the scheduler is the application's: a user must leave it running */
	public boolean schedulerGiven() {
		return this.givenScheduler != null;
	}

	/** @return whether {@link #close()} was called */
	public boolean isClosed() {
		return this.closed;
	}

	private void requireOpen() {
		if (this.closed) {
			throw new IllegalStateException("The background threads of " + this.name + " are closed");
		}
	}

	/**
	 * Stops the threads this object created, without waiting; the application's are left running. Later uses throw
	 * {@link IllegalStateException}.
	 */
	@Override
	public void close() {
		ScheduledThreadPoolExecutor own;
		this.lock.lock();
		try {
			this.closed = true;
			own = this.ownScheduler;
			this.ownScheduler = null;
			this.scheduler = null;
			this.executor = null;
		}
		finally {
			this.lock.unlock();
		}
		if (own != null) {
			own.shutdownNow();
		}
	}

	@Override
	public String toString() {
		return "Background[" + this.name + ", scheduler " + ((this.givenScheduler != null) ? "given" : "own")
				+ ", executor " + ((this.givenExecutor != null) ? "given" : "own") + "]";
	}

}
