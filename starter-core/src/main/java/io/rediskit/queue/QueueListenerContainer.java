package io.rediskit.queue;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

import io.rediskit.support.BoundedStop;
import io.rediskit.support.Stages;
import io.rediskit.support.ThrottledLog;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.core.task.VirtualThreadTaskExecutor;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * Consumes one queue with a {@link QueueHandler}, up to {@code concurrency} messages at once; from
 * {@link QueueRegistry#createContainer}. A {@link SmartLifecycle}: the Spring container starts and stops it. It
 * is a shell over three parts, each with one job, on threads the application can give:
 * <ul>
 * <li>the <b>poller</b> ({@link QueuePoller}) claims, in one script call, as many due messages as the
 * dispatcher has room for, when room is made, when a wake-up notification comes, at the earliest due time it was
 * told, or after the {@link QueueSpec#pollInterval() poll interval} at the latest (a lost notification costs at
 * most that). It runs as tasks on the {@link #setTaskScheduler task scheduler} and holds no thread;</li>
 * <li>the <b>dispatcher</b> ({@link QueueDispatcher}) holds up to {@code concurrency + }{@link #setPrefetch
 * prefetch} deliveries and runs the handler on the {@link #setExecutor executor}, at most {@code concurrency} at
 * once. A handler that returns acknowledges the message (unless it settled it); one that throws retries it with
 * the queue's backoff or, after its last delivery, dead-letters it with the exception as the reason;</li>
 * <li>the <b>visibility watchdog</b> ({@link VisibilityWatchdog}) extends, every third of the visibility timeout
 * and in one script call, the visibility of every delivery held, so that long handlers and waiting messages are
 * not redelivered; a consumer that dies stops extending, and its messages come back after the timeout.</li>
 * </ul>
 * <b>Acknowledgement</b> is at-least-once: a message is acked only after its handler returned; the handler's
 * thread does not wait for the ack, and acks that meet on the wire go as one script call. A finished delivery's
 * ack is held back while others this container took are still running or waiting, for at most the
 * {@link #setAckLinger ack linger} (2 ms by default), so that a claim of quick handlers is acked in one call. A
 * crash (or an outage) between the handler's end and the ack, held or on the wire, brings the message back after
 * the visibility timeout, to be handled again; a stop sends held acks at once.
 * <p>
 * <b>Cancelling.</b> A message {@link RedisQueue#cancel(String) cancelled} while this container holds it is
 * not started, or its handler's thread is interrupted (the container listens on the queue's cancel channel); it
 * ends in the dead letters as {@value DeadLetter#CANCELLED} whatever the handler does, and the thread goes on with
 * the next message. A message whose {@link QueueEntry#timeToLive() time to live} passed while it waited here is
 * dead-lettered as {@value DeadLetter#EXPIRED} instead of started.
 * <p>
 * <b>Stopping</b> is graceful: no new claims; acks held are sent at once; messages claimed but not started go back
 * to the queue at once;
 * running handlers get up to the {@link #setShutdownTimeout shutdown timeout} to finish and be acked, and the
 * messages of those still running then go back at once (their handlers' later settling is refused as stale).
 * {@link #stop(Runnable)} does not block its caller, so that many containers stop in parallel.
 * <p>
 * <b>Failures.</b> While Redis is unavailable the poller logs once per 10 s and tries again every poll
 * interval; nothing is lost, since unsettled deliveries come back after the visibility timeout.
 *
 * @param <T> the payload type
 */
public class QueueListenerContainer<T> implements SmartLifecycle {

	/** Started after the queue registry and stopped before it, and before the web server stops. */
	public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 2048;

	/** Default time running handlers get to finish when the container stops. */
	public static final Duration DEFAULT_SHUTDOWN_TIMEOUT = Duration.ofSeconds(10);

	/**
	 * Default longest time a finished delivery's ack is held for the others of its container still running: see
	 * {@link #setAckLinger}.
	 */
	public static final Duration DEFAULT_ACK_LINGER = Duration.ofMillis(2);

	/** Longest ack linger allowed, whatever the visibility timeout. */
	public static final Duration MAX_ACK_LINGER = Duration.ofSeconds(1);

	/** Default prefetch per handler: a container claims ahead up to this many times its concurrency. */
	public static final int DEFAULT_PREFETCH_PER_HANDLER = 4;

	private static final Log logger = LogFactory.getLog(QueueListenerContainer.class);

	private final ScriptedRedisQueue<T> queue;

	private final QueueHandler<T> handler;

	private final int concurrency;

	private final Supplier<TaskScheduler> defaultScheduler;

	private final Runnable signal = this::onSignal;

	private final java.util.function.Consumer<String> cancelSignal = this::onCancel;

	private final ReentrantLock lifecycle = new ReentrantLock();

	private final ThrottledLog pollFailures;

	private @Nullable Executor givenExecutor;

	private @Nullable TaskScheduler givenScheduler;

	private boolean virtualThreads;

	private int prefetch;

	private Duration shutdownTimeout = DEFAULT_SHUTDOWN_TIMEOUT;

	private Duration ackLinger = DEFAULT_ACK_LINGER;

	private boolean autoStartup = true;

	private @Nullable String listenerId;

	private volatile boolean running;

	private volatile @Nullable QueueDispatcher<T> dispatcher;

	private volatile @Nullable QueuePoller<T> poller;

	private @Nullable VisibilityWatchdog<T> watchdog;

	private @Nullable ExecutorService ownExecutor;

	QueueListenerContainer(ScriptedRedisQueue<T> queue, QueueHandler<T> handler, int concurrency,
			Supplier<TaskScheduler> defaultScheduler) {
		if (concurrency < 1 || concurrency > QueueScripts.MAX_CLAIM) {
			throw new IllegalArgumentException("concurrency must be between 1 and " + QueueScripts.MAX_CLAIM
					+ ", was " + concurrency);
		}
		this.queue = queue;
		this.handler = Objects.requireNonNull(handler, "handler must not be null");
		this.concurrency = concurrency;
		this.defaultScheduler = defaultScheduler;
		this.prefetch = Math.min(concurrency * DEFAULT_PREFETCH_PER_HANDLER, QueueScripts.MAX_CLAIM - concurrency);
		this.pollFailures = new ThrottledLog(logger, Duration.ofSeconds(10),
				"Queue '" + queue.name() + "' cannot be polled; trying again every poll interval");
	}

	/**
	 * Gives the executor handlers run on. A container takes at most {@code concurrency} of its threads at once, each
	 * for as long as messages wait, so an executor with fewer threads caps the concurrency. Without one, the
	 * container runs up to {@code concurrency} threads of its own (virtual ones with {@link #setVirtualThreads}),
	 * each ended after a minute without work and all when it stops. Set it before the container starts.
	 * @param executor the executor, or {@code null} for the default
	 */
	public void setExecutor(@Nullable Executor executor) {
		this.givenExecutor = executor;
	}

	/**
	 * Gives the scheduler the poller and the watchdog run their short tasks on; without one, the registry's (see
	 * {@link QueueRegistry#setTaskScheduler}). Set it before the container starts.
	 * @param scheduler the scheduler, or {@code null} for the registry's
	 */
	public void setTaskScheduler(@Nullable TaskScheduler scheduler) {
		this.givenScheduler = scheduler;
	}

	/**
	 * @param virtualThreads whether the default executor runs handlers on virtual threads (Java 21 or later);
	 * ignored when an executor is given
	 */
	public void setVirtualThreads(boolean virtualThreads) {
		this.virtualThreads = virtualThreads;
	}

	/**
	 * Sets how many messages the container claims ahead of its free handlers: a claim takes up to
	 * {@code concurrency + prefetch} minus what it holds, in one script call. More drains a burst in fewer round
	 * trips; less leaves more messages to other consumers and holds fewer while handlers are slow (held messages
	 * are kept visible to this container by the watchdog, and go back at once when it stops). Default:
	 * {@value #DEFAULT_PREFETCH_PER_HANDLER} per handler. Set it before the container starts.
	 * @param prefetch 0 (claim only for free handlers) up to {@code 1000 - concurrency}
	 */
	public void setPrefetch(int prefetch) {
		if (prefetch < 0 || prefetch > QueueScripts.MAX_CLAIM - this.concurrency) {
			throw new IllegalArgumentException("prefetch must be between 0 and " + (QueueScripts.MAX_CLAIM
					- this.concurrency) + " (1000 minus the concurrency " + this.concurrency + "), was " + prefetch);
		}
		this.prefetch = prefetch;
	}

	/**
	 * Sets how long a finished delivery's ack may be held back while other deliveries this container took are still
	 * running or waiting for a handler, to be sent with theirs in one script call: the acks held go when the last of
	 * those finishes, or this long after the first was held, whichever first. A claim of quick handlers is thus
	 * acked in one call (without it, in two: the first finished alone, the rest together). At-least-once is
	 * unchanged: a crash while acks are held makes their messages come back after the visibility timeout, as a
	 * crash before the ack does; a stop sends them at once. Zero holds none. At most a tenth of the queue's
	 * visibility timeout (a held ack's delivery is no longer extended by the watchdog) and at most
	 * {@link #MAX_ACK_LINGER}. Default {@link #DEFAULT_ACK_LINGER}. Set it before the container starts.
	 * @param ackLinger the longest an ack is held
	 */
	public void setAckLinger(Duration ackLinger) {
		Objects.requireNonNull(ackLinger, "ackLinger must not be null");
		Duration visibility = this.queue.spec().visibilityTimeout();
		Duration max = visibility.dividedBy(10);
		if (max.compareTo(MAX_ACK_LINGER) > 0) {
			max = MAX_ACK_LINGER;
		}
		if (ackLinger.isNegative() || ackLinger.compareTo(max) > 0) {
			throw new IllegalArgumentException("ackLinger must be between 0 and " + max.toMillis() + "ms (a tenth of"
					+ " the visibility timeout of queue '" + this.queue.name() + "', " + visibility.toMillis()
					+ "ms, and at most " + MAX_ACK_LINGER.toMillis() + "ms), was " + ackLinger.toMillis() + "ms");
		}
		this.ackLinger = ackLinger;
	}

	/** @return the longest a finished delivery's ack is held for others: see {@link #setAckLinger} */
	public Duration getAckLinger() {
		return this.ackLinger;
	}

	/**
	 * @param shutdownTimeout how long running handlers get to finish when the container stops, after which their
	 * messages go back to the queue
	 */
	public void setShutdownTimeout(Duration shutdownTimeout) {
		this.shutdownTimeout = Objects.requireNonNull(shutdownTimeout, "shutdownTimeout");
	}

	/** @param autoStartup whether the Spring container starts this container */
	public void setAutoStartup(boolean autoStartup) {
		this.autoStartup = autoStartup;
	}

	/**
	 * Names this listener, so that it can be paused on its own across instances: containers of the same queue and
	 * id on every instance are one listener ({@code @QueueListener} methods get {@code <bean>.<method>} unless
	 * their {@code id} says otherwise). Set it before the container starts.
	 * @param listenerId 1 to 200 characters, or {@code null} for none
	 */
	public void setListenerId(@Nullable String listenerId) {
		if (listenerId != null && (listenerId.isEmpty() || listenerId.length() > 200)) {
			throw new IllegalArgumentException("listenerId must be 1 to 200 characters, was " + listenerId.length());
		}
		this.listenerId = listenerId;
	}

	/** @return the listener's id, or {@code null} if it has none */
	public @Nullable String getListenerId() {
		return this.listenerId;
	}

	/**
	 * Pauses this listener on every instance (the containers of its queue with its {@link #setListenerId id}):
	 * their claims take nothing from the moment this returns, while what they hold finishes; other listeners of
	 * the queue go on. Kept in Redis until {@link #resume()}, so that it outlives restarts. See
	 * {@link RedisQueue#pause()} to pause the whole queue.
	 * @throws IllegalStateException if the listener has no id
	 */
	public void pause() {
		Stages.join(this.queue.pause(listenerPause()));
	}

	/** Resumes this listener on every instance; a pause of the whole queue stays. */
	public void resume() {
		Stages.join(this.queue.resume(listenerPause()));
	}

	/** @return whether this listener is paused on its own, as Redis says now */
	public boolean isPaused() {
		return Stages.join(this.queue.isPaused(listenerPause()));
	}

	private String listenerPause() {
		String id = this.listenerId;
		if (id == null) {
			throw new IllegalStateException("The listener of queue '" + this.queue.name()
					+ "' has no id to pause it by; give it one with setListenerId");
		}
		return QueueScripts.Keys.listenerPause(id);
	}

	/** @return the queue consumed */
	public RedisQueue<T> getQueue() {
		return this.queue;
	}

	/** @return most messages handled at once */
	public int getConcurrency() {
		return this.concurrency;
	}

	/** @return most messages claimed ahead of the free handlers */
	public int getPrefetch() {
		return this.prefetch;
	}

	/** @return messages claimed and not settled yet, started or not */
	public int getInFlightCount() {
		QueueDispatcher<T> current = this.dispatcher;
		return (current != null) ? current.heldCount() : 0;
	}

	@Override
	public boolean isAutoStartup() {
		return this.autoStartup;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public void start() {
		QueuePoller<T> poll;
		this.lifecycle.lock();
		try {
			if (this.running) {
				return;
			}
			TaskScheduler scheduler = scheduler();
			QueueDispatcher<T> dispatch = new QueueDispatcher<>(this.queue, this.handler, this.concurrency,
					this.prefetch, executor(), this::onCapacityFreed, this.pollFailures, this.ackLinger, scheduler);
			poll = new QueuePoller<>(this.queue, dispatch, scheduler, this.pollFailures, this.listenerId);
			VisibilityWatchdog<T> extender = new VisibilityWatchdog<>(this.queue, dispatch::unsettled,
					this.pollFailures);
			this.dispatcher = dispatch;
			this.poller = poll;
			this.watchdog = extender;
			this.running = true;
			extender.start(scheduler);
		}
		finally {
			this.lifecycle.unlock();
		}
		// Subscribing waits for Redis, for good while it cannot be reached: outside the lock, so that a stop never
		// waits for it. Before the first claim, so that no wake-up in between is missed.
		this.queue.parts().signals.watch(this.queue.keys().channel, this.signal);
		this.queue.parts().signals.listen(this.queue.keys().cancelChannel, this.cancelSignal);
		this.lifecycle.lock();
		try {
			if (this.running && this.poller == poll) {
				poll.start();
			}
			else if (!this.running) {
				// Stopped while subscribing: the stop unsubscribed before these subscriptions were made.
				this.queue.parts().signals.unwatch(this.queue.keys().channel, this.signal);
				this.queue.parts().signals.unlisten(this.queue.keys().cancelChannel, this.cancelSignal);
			}
		}
		finally {
			this.lifecycle.unlock();
		}
	}

	/**
	 * Stops gracefully without blocking: no new claims, unstarted messages back to the queue at once, running
	 * handlers given the shutdown timeout, then the messages of those still running back to the queue at once.
	 * @param callback run when done
	 */
	@Override
	public void stop(Runnable callback) {
		CompletableFuture<Void> done;
		this.lifecycle.lock();
		try {
			done = beginStop();
		}
		finally {
			this.lifecycle.unlock();
		}
		done.whenComplete((result, failure) -> {
			if (failure != null) {
				logger.warn("Queue '" + this.queue.name() + "' container did not stop cleanly", failure);
			}
			callback.run();
		});
	}

	/**
	 * {@link #stop(Runnable)}, returning when done, or at the latest after the shutdown timeout and
	 * {@link BoundedStop#TIMEOUT} more (a claim or a give-back that Redis does not answer), the stop going on in
	 * the background then.
	 */
	@Override
	public void stop() {
		CompletableFuture<Void> done = new CompletableFuture<>();
		stop(() -> done.complete(null));
		BoundedStop.await(done, this.shutdownTimeout.plus(BoundedStop.TIMEOUT),
				"the listener container of queue '" + this.queue.name() + "'");
	}

	// Under the lifecycle lock.
	private CompletableFuture<Void> beginStop() {
		QueuePoller<T> poll = this.poller;
		QueueDispatcher<T> dispatch = this.dispatcher;
		VisibilityWatchdog<T> extender = this.watchdog;
		if (!this.running || poll == null || dispatch == null || extender == null) {
			return CompletableFuture.completedFuture(null);
		}
		this.running = false;
		this.queue.parts().signals.unwatch(this.queue.keys().channel, this.signal);
		this.queue.parts().signals.unlisten(this.queue.keys().cancelChannel, this.cancelSignal);
		// The claim under way, if any, hands its messages to the dispatcher first; its stop then gives back every
		// message not started, and waits for the running ones.
		Duration timeout = this.shutdownTimeout;
		ExecutorService own = this.ownExecutor;
		this.ownExecutor = null;
		return poll.stop().thenCompose((claimsDone) -> dispatch.stop(timeout)).whenComplete((result, failure) -> {
			extender.stop();
			if (own != null) {
				// Handlers still running past the timeout keep their threads until they return; their messages
				// went back already.
				own.shutdown();
			}
		});
	}

	private void onSignal() {
		QueuePoller<T> current = this.poller;
		if (current != null) {
			current.trigger();
		}
	}

	private void onCancel(String id) {
		QueueDispatcher<T> current = this.dispatcher;
		if (current != null) {
			current.cancel(id);
		}
	}

	private void onCapacityFreed(boolean onReply) {
		QueuePoller<T> current = this.poller;
		if (current != null) {
			current.capacityFreed(onReply);
		}
	}

	private TaskScheduler scheduler() {
		TaskScheduler given = this.givenScheduler;
		return (given != null) ? given : this.defaultScheduler.get();
	}

	private Executor executor() {
		Executor given = this.givenExecutor;
		if (given != null) {
			return given;
		}
		String prefix = "redis-kit-queue-" + this.queue.name() + "-";
		ThreadFactory threads;
		if (this.virtualThreads) {
			threads = new VirtualThreadTaskExecutor(prefix).getVirtualThreadFactory();
		}
		else {
			CustomizableThreadFactory platform = new CustomizableThreadFactory(prefix);
			platform.setDaemon(true);
			threads = platform;
		}
		// Up to concurrency threads, each ended after a minute without work: a burst reuses them instead of
		// paying for a thread per worker run.
		ThreadPoolExecutor own = new ThreadPoolExecutor(this.concurrency, this.concurrency, 1, TimeUnit.MINUTES,
				new LinkedBlockingQueue<>(), threads);
		own.allowCoreThreadTimeOut(true);
		this.ownExecutor = own;
		return own;
	}

}
