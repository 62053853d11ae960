package io.rediskit.lock;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.Listeners;
import io.rediskit.support.ScriptExecutor;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.concurrent.ConcurrentTaskScheduler;

/**
 * Hands out {@link RedisCountDownLatch}es on one Redis deployment (standalone, Sentinel or Cluster). A latch holds
 * no lease (nobody owns it), so the registry has no watchdog: only the opened channels' subscription, which wakes
 * waiters (the lock's {@code ReleaseSignals}), and a scheduler for the timers of asynchronous waits. Create one per
 * application and share it (the Spring Boot starter registers one); handles are cheap and not cached.
 * <p>
 * <b>Lifecycle.</b> {@link #start()} subscribes as waiters need and starts the scheduler (one daemon thread unless
 * the application gives its own); used outside a container the registry starts on the first wait. {@link #stop()}
 * ends asynchronous waits with {@link IllegalStateException}; waiting threads poll.
 */
public class LatchRegistry implements SmartLifecycle, AutoCloseable {

	private final KeyNaming keyNaming;

	private final LatchScripts scripts;

	private final ReleaseSignals signals;

	private final LatchSpec spec;

	private final Listeners<LatchListener> listeners;

	private final String instanceId = UUID.randomUUID().toString();

	private final AtomicLong sequence = new AtomicLong();

	private final ReentrantLock lifecycle = new ReentrantLock();

	private final Set<Runnable> stopHooks = ConcurrentHashMap.newKeySet();

	private @Nullable TaskScheduler givenScheduler;

	private @Nullable Executor givenExecutor;

	private @Nullable ScheduledExecutorService ownScheduler;

	private volatile @Nullable TaskScheduler scheduler;

	private volatile boolean closed;

	/**
	 * Creates a registry with default key naming and spec, no listeners, on the factory's connections.
	 * @param connectionFactory the application's Redis connections
	 */
	public LatchRegistry(RedisConnectionFactory connectionFactory) {
		this(ScriptExecutor.of(connectionFactory), connectionFactory, KeyNaming.defaults(), LatchSpec.defaults(),
				List.of());
	}

	/**
	 * Creates a registry; it starts nothing until {@link #start()} or its first wait.
	 * @param scripts runs the latch's scripts
	 * @param connectionFactory for the reads of the count and the opened channels' subscription
	 * @param keyNaming how keys are named
	 * @param spec how long latches are kept
	 * @param listeners told about count-downs and waits, in order
	 */
	public LatchRegistry(ScriptExecutor scripts, RedisConnectionFactory connectionFactory, KeyNaming keyNaming,
			LatchSpec spec, List<? extends LatchListener> listeners) {
		Objects.requireNonNull(scripts, "scripts must not be null");
		Objects.requireNonNull(connectionFactory, "connectionFactory must not be null");
		this.keyNaming = Objects.requireNonNull(keyNaming, "keyNaming must not be null");
		this.spec = Objects.requireNonNull(spec, "spec must not be null");
		this.scripts = new LatchScripts(scripts, CommandExecutor.of(connectionFactory), spec);
		this.signals = new ReleaseSignals(connectionFactory, keyNaming.areaKey("latch", "keep-alive"));
		this.listeners = Listeners.of("latch", listeners);
	}

	/**
	 * @param name the latch name, also its metrics' tag: use a fixed set of names
	 * @return a handle on that latch
	 */
	public RedisCountDownLatch getCountDownLatch(String name) {
		Objects.requireNonNull(name, "name");
		if (name.isEmpty()) {
			throw new IllegalArgumentException("Latch name must not be empty");
		}
		return new RedisCountDownLatch(name, new LatchScripts.Keys(this.keyNaming, name), this);
	}

	/** @return the spec this registry runs with */
	public LatchSpec spec() {
		return this.spec;
	}

	/**
	 * Gives the scheduler the timers of asynchronous waits run on; set it before the registry starts.
	 * @param taskScheduler the application's scheduler, or {@code null} for a daemon thread of the registry's own
	 */
	public void setTaskScheduler(@Nullable TaskScheduler taskScheduler) {
		this.lifecycle.lock();
		try {
			requireStopped();
			this.givenScheduler = taskScheduler;
		}
		finally {
			this.lifecycle.unlock();
		}
	}

	/**
	 * Gives the executor subscribing and unsubscribing run on; set it before the registry starts.
	 * @param executor the application's executor, or {@code null} for a thread per task
	 */
	public void setSubscriptionExecutor(@Nullable Executor executor) {
		this.lifecycle.lock();
		try {
			requireStopped();
			this.givenExecutor = executor;
		}
		finally {
			this.lifecycle.unlock();
		}
	}

	private void requireStopped() {
		if (this.scheduler != null) {
			throw new IllegalStateException("Set the scheduler and executor of a latch registry before it starts");
		}
	}

	@Override
	public void start() {
		this.lifecycle.lock();
		try {
			if (this.closed) {
				throw new IllegalStateException("The latch registry is closed");
			}
			if (this.scheduler != null) {
				return;
			}
			TaskScheduler current = this.givenScheduler;
			if (current == null) {
				this.ownScheduler = Executors.newSingleThreadScheduledExecutor((runnable) -> {
					Thread thread = new Thread(runnable, "redis-kit-latch-scheduler");
					thread.setDaemon(true);
					return thread;
				});
				current = new ConcurrentTaskScheduler(this.ownScheduler);
			}
			Executor executor = this.givenExecutor;
			if (executor == null) {
				SimpleAsyncTaskExecutor own = new SimpleAsyncTaskExecutor("redis-kit-latch-");
				own.setDaemon(true);
				own.setVirtualThreads(Runtime.version().feature() >= 21);
				executor = own;
			}
			this.signals.start(executor);
			this.scheduler = current;
		}
		finally {
			this.lifecycle.unlock();
		}
	}

	@Override
	public void stop() {
		this.lifecycle.lock();
		try {
			if (this.scheduler == null) {
				return;
			}
			this.scheduler = null;
			this.signals.stop();
			if (this.ownScheduler != null) {
				this.ownScheduler.shutdownNow();
				this.ownScheduler = null;
			}
		}
		finally {
			this.lifecycle.unlock();
		}
		List<Runnable> hooks = List.copyOf(this.stopHooks);
		this.stopHooks.clear();
		hooks.forEach(Runnable::run);
	}

	@Override
	public boolean isRunning() {
		return this.scheduler != null;
	}

	@Override
	public int getPhase() {
		return LockRegistry.PHASE;
	}

	/** Stops for good; a later wait fails with {@link IllegalStateException}. */
	@Override
	public void close() {
		stop();
		this.closed = true;
	}

	void ensureRunning() {
		if (this.scheduler == null) {
			start();
		}
	}

	ScheduledFuture<?> schedule(Runnable task, long delayNanos) {
		TaskScheduler current = this.scheduler;
		if (current == null) {
			throw new IllegalStateException("The latch registry is " + (this.closed ? "closed" : "stopped"));
		}
		return current.schedule(task, current.getClock().instant().plus(Duration.ofNanos(delayNanos)));
	}

	void onStop(Runnable hook) {
		this.stopHooks.add(hook);
	}

	void removeOnStop(Runnable hook) {
		this.stopHooks.remove(hook);
	}

	String nextRequestId() {
		return this.instanceId + ":" + Long.toString(this.sequence.incrementAndGet(), 36);
	}

	LatchScripts scripts() {
		return this.scripts;
	}

	ReleaseSignals signals() {
		return this.signals;
	}

	Listeners<LatchListener> listeners() {
		return this.listeners;
	}

}
