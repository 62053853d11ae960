package io.rediskit.latch;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

import io.rediskit.lock.LockRegistry;
import io.rediskit.support.Background;
import io.rediskit.support.CommandExecutor;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.Names;
import io.rediskit.support.Listeners;
import io.rediskit.support.Observations;
import io.rediskit.support.RedisKitObservation;
import io.rediskit.support.RecentlyUsed;
import io.rediskit.support.ReleaseSignals;
import io.rediskit.support.ScriptExecutor;
import io.rediskit.support.Stages;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Hands out {@link RedisCountDownLatch}es on one Redis deployment (standalone, Sentinel or Cluster). A latch holds
 * no lease (nobody owns it), so the registry has no watchdog: only the opened channels' subscription, which wakes
 * waiters (the lock's {@code ReleaseSignals}), and a scheduler for the timers of asynchronous waits. Create one per
 * application and share it (the Spring Boot starter registers one); handles are cheap and not cached.
 * <p>
 * <b>Lifecycle.</b> {@link #start()} subscribes as waiters need, on the registry's {@link Background} (the
 * application's, or threads of its own); used outside a container the registry starts on the first wait. {@link #stop()}
 * ends asynchronous waits with {@link IllegalStateException}; waiting threads poll.
 */
public class LatchRegistry implements SmartLifecycle, AutoCloseable {

	private final KeyNaming keyNaming;

	private final LatchScripts scripts;

	private final ReleaseSignals signals;

	private final LatchSpec spec;

	private final Listeners<LatchListener> listeners;

	private volatile Observations observations = Observations.NOOP;

	private final RecentlyUsed<RedisCountDownLatch> recent = new RecentlyUsed<>();

	private final String instanceId = UUID.randomUUID().toString();

	private final AtomicLong sequence = new AtomicLong();

	private final ReentrantLock lifecycle = new ReentrantLock();

	private final Set<Runnable> stopHooks = ConcurrentHashMap.newKeySet();

	private @Nullable Background given;

	private @Nullable Background own;

	private volatile @Nullable Background background;

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
		this.signals = new ReleaseSignals(connectionFactory, "the latches' channels");
		this.listeners = Listeners.of("latch", listeners);
	}

	/**
	 * Observes every wait for a latch as {@link RedisKitObservation#LATCH_AWAIT}.
	 * @param observations the application's, {@link Observations#NOOP} (the default) for none
	 */
	public void setObservations(Observations observations) {
		this.observations = Objects.requireNonNull(observations, "observations must not be null");
	}

	Observations observations() {
		return this.observations;
	}

	/**
	 * @param name the latch name, also its metrics' tag: use a fixed set of names
	 * @return a handle on that latch
	 * @throws IllegalArgumentException if the name breaks the rule of names given in code: 1 to 128 characters
	 * without control characters ({@link io.rediskit.support.Names#requireData})
	 */
	public RedisCountDownLatch getCountDownLatch(String name) {
		Names.requireData("Latch", name);
		return this.recent.remember(name, new RedisCountDownLatch(name, new LatchScripts.Keys(this.keyNaming, name), this));
	}

	/**
	 * The latches this registry handed out, for what lists them (the actuator endpoint, the console): the last handle
	 * of each name, at most {@value RecentlyUsed#MAX} names, the least recently handed out forgotten first. Their
	 * counts are in Redis: ask each its {@link RedisCountDownLatch#count()}.
	 * @return the handles, by name
	 */
	public List<RedisCountDownLatch> latches() {
		return this.recent.sorted();
	}

	/**
	 * Reads one latch's count in Redis without handing out a handle, so that it is not listed among
	 * {@link #latches()}: for what lists the latches other instances use (the console, from their heartbeats).
	 * @param name the latch name
	 * @return the count left: {@code 0} open, {@code -1} not set (or expired)
	 */
	public long count(String name) {
		Names.requireData("Latch", name);
		return Stages.join(scripts().count(new LatchScripts.Keys(this.keyNaming, name)));
	}

	/** @return the spec this registry runs with */
	public LatchSpec spec() {
		return this.spec;
	}

	/**
	 * Gives the threads the registry runs on: the timers of asynchronous waits on its scheduler, opening the pub/sub
	 * connection on its executor. Set it before the registry starts; the registry leaves it running.
	 * @param background the application's, shared by every primitive, or {@code null} for threads of the
	 * registry's own ({@link Background#standalone(String)}), closed with it
	 * @throws IllegalStateException if the registry has started
	 */
	public void setBackground(@Nullable Background background) {
		this.lifecycle.lock();
		try {
			if (this.background != null) {
				throw new IllegalStateException("Set the background of a latch registry before it starts");
			}
			this.given = background;
		}
		finally {
			this.lifecycle.unlock();
		}
	}

	@Override
	public void start() {
		this.lifecycle.lock();
		try {
			if (this.closed) {
				throw new IllegalStateException("The latch registry is closed");
			}
			if (this.background != null) {
				return;
			}
			Background current = this.given;
			if (current == null) {
				if (this.own == null) {
					this.own = Background.standalone("latch");
				}
				current = this.own;
			}
			this.signals.start(current);
			this.background = current;
		}
		finally {
			this.lifecycle.unlock();
		}
	}

	@Override
	public void stop() {
		this.lifecycle.lock();
		try {
			if (this.background == null) {
				return;
			}
			this.background = null;
			this.signals.stop();
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
		return this.background != null;
	}

	@Override
	public int getPhase() {
		return LockRegistry.PHASE;
	}

	/** Stops for good, closing the threads of the registry's own; a later wait fails with {@link IllegalStateException}. */
	@Override
	public void close() {
		stop();
		this.lifecycle.lock();
		try {
			this.closed = true;
			if (this.own != null) {
				this.own.close();
				this.own = null;
			}
		}
		finally {
			this.lifecycle.unlock();
		}
	}

	void ensureRunning() {
		if (this.background == null) {
			start();
		}
	}

	ScheduledFuture<?> schedule(Runnable task, long delayNanos) {
		Background current = this.background;
		if (current == null) {
			throw new IllegalStateException("The latch registry is " + (this.closed ? "closed" : "stopped"));
		}
		return current.schedule(task, Duration.ofNanos(delayNanos));
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
