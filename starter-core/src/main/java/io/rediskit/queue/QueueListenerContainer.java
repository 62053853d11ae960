package io.rediskit.queue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

import io.rediskit.support.Stages;
import io.rediskit.support.ThrottledLog;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;

/**
 * Consumes one queue with a {@link QueueHandler}, up to {@code concurrency} messages at once; from
 * {@link QueueRegistry#createContainer}. A {@link SmartLifecycle}: the Spring container starts and stops it.
 * <p>
 * <b>Claiming.</b> One poller thread claims as many messages as there are free handlers, in one round trip
 * (take back expired deliveries, promote due messages, claim). When nothing is due it sleeps until the
 * earliest due time it was told, a wake-up notification (a new message due earlier, a retry, a message given
 * back) or the {@link QueueSpec#pollInterval() poll interval}, whichever comes first: a lost notification
 * costs at most one poll interval.
 * <p>
 * <b>Handling.</b> Handlers run on the given executor, or on {@code concurrency} threads of the container's
 * own. A handler that returns acknowledges the message (unless it settled it); one that throws retries it with
 * the queue's backoff or, after its last delivery, dead-letters it with the exception as the reason. While a
 * handler runs, its delivery's visibility is extended every third of the visibility timeout, so long handlers
 * are not redelivered; a consumer that dies stops extending and its messages come back after the timeout.
 * <p>
 * <b>Stopping</b> is graceful: no new claims; messages claimed but not started go back to the queue at once;
 * running handlers get up to the {@link #setShutdownTimeout shutdown timeout} to finish, and the messages of
 * those still running then go back at once (their handlers' later settling is refused as stale).
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

	private static final Log logger = LogFactory.getLog(QueueListenerContainer.class);

	private final ScriptedRedisQueue<T> queue;

	private final QueueHandler<T> handler;

	private final int concurrency;

	private final QueueWakeup wakeup = new QueueWakeup();

	private final Runnable signal = this.wakeup::signal;

	private final Set<Tracked<T>> inFlight = ConcurrentHashMap.newKeySet();

	private final ReentrantLock lifecycle = new ReentrantLock();

	private final ThrottledLog pollFailures;

	private @Nullable Executor givenExecutor;

	private Duration shutdownTimeout = DEFAULT_SHUTDOWN_TIMEOUT;

	private boolean autoStartup = true;

	private volatile boolean running;

	private volatile boolean accepting;

	private @Nullable Semaphore slots;

	private @Nullable Executor executor;

	private @Nullable ExecutorService ownExecutor;

	private @Nullable ScheduledExecutorService watchdog;

	private @Nullable Thread poller;

	QueueListenerContainer(ScriptedRedisQueue<T> queue, QueueHandler<T> handler, int concurrency) {
		if (concurrency < 1 || concurrency > QueueScripts.MAX_CLAIM) {
			throw new IllegalArgumentException("concurrency must be between 1 and " + QueueScripts.MAX_CLAIM
					+ ", was " + concurrency);
		}
		this.queue = queue;
		this.handler = Objects.requireNonNull(handler, "handler must not be null");
		this.concurrency = concurrency;
		this.pollFailures = new ThrottledLog(logger, Duration.ofSeconds(10),
				"Queue '" + queue.name() + "' cannot be polled; trying again every poll interval");
	}

	/**
	 * Gives the executor handlers run on, instead of {@code concurrency} threads of the container's own. It must
	 * run at least {@code concurrency} tasks at once. Set it before the container starts.
	 * @param executor the executor, or {@code null} for the default
	 */
	public void setExecutor(@Nullable Executor executor) {
		this.givenExecutor = executor;
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

	/** @return the queue consumed */
	public RedisQueue<T> getQueue() {
		return this.queue;
	}

	/** @return most messages handled at once */
	public int getConcurrency() {
		return this.concurrency;
	}

	/** @return messages claimed and not settled yet, started or not */
	public int getInFlightCount() {
		return this.inFlight.size();
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
		this.lifecycle.lock();
		try {
			if (this.running) {
				return;
			}
			this.slots = new Semaphore(this.concurrency);
			if (this.givenExecutor != null) {
				this.executor = this.givenExecutor;
			}
			else {
				AtomicInteger threads = new AtomicInteger();
				ExecutorService own = Executors.newFixedThreadPool(this.concurrency, (runnable) -> {
					Thread thread = new Thread(runnable,
							"redis-kit-queue-" + this.queue.name() + "-" + threads.incrementAndGet());
					thread.setDaemon(true);
					return thread;
				});
				this.ownExecutor = own;
				this.executor = own;
			}
			ScheduledExecutorService extender = Executors.newSingleThreadScheduledExecutor((runnable) -> {
				Thread thread = new Thread(runnable, "redis-kit-queue-" + this.queue.name() + "-extender");
				thread.setDaemon(true);
				return thread;
			});
			long period = Math.max(1, this.queue.spec().visibilityTimeout().toMillis() / 3);
			extender.scheduleWithFixedDelay(this::extendVisibility, period, period, TimeUnit.MILLISECONDS);
			this.watchdog = extender;
			this.accepting = true;
			this.running = true;
			this.queue.parts().signals.watch(this.queue.keys().channel, this.signal);
			Thread thread = new Thread(this::pollLoop, "redis-kit-queue-" + this.queue.name() + "-poller");
			thread.setDaemon(true);
			this.poller = thread;
			thread.start();
		}
		finally {
			this.lifecycle.unlock();
		}
	}

	@Override
	public void stop(Runnable callback) {
		try {
			stop();
		}
		finally {
			callback.run();
		}
	}

	/**
	 * Stops gracefully: no new claims, unstarted messages back to the queue at once, running handlers given the
	 * shutdown timeout, then the messages of those still running back to the queue at once. Returns when done.
	 */
	@Override
	public void stop() {
		this.lifecycle.lock();
		try {
			if (!this.running) {
				return;
			}
			this.running = false;
			this.accepting = false;
			this.queue.parts().signals.unwatch(this.queue.keys().channel, this.signal);
			Thread thread = this.poller;
			this.wakeup.signal();
			if (thread != null) {
				joinQuietly(thread);
			}
			awaitHandlers(this.shutdownTimeout.toNanos());
			releaseRemaining();
			ScheduledExecutorService extender = this.watchdog;
			if (extender != null) {
				extender.shutdownNow();
			}
			ExecutorService own = this.ownExecutor;
			if (own != null) {
				own.shutdownNow();
			}
			this.ownExecutor = null;
			this.executor = null;
			this.watchdog = null;
			this.poller = null;
		}
		finally {
			this.lifecycle.unlock();
		}
	}

	private void pollLoop() {
		Semaphore slots = Objects.requireNonNull(this.slots);
		while (this.running) {
			long seen = this.wakeup.generation();
			int free = slots.availablePermits();
			try {
				if (free == 0) {
					this.wakeup.await(seen, this.queue.spec().pollInterval().toNanos());
					continue;
				}
				ScriptedRedisQueue.Batch<T> batch;
				try {
					batch = this.queue.claimBatch(free).toCompletableFuture().get();
				}
				catch (ExecutionException ex) {
					this.pollFailures.warn(Stages.unwrap(ex.getCause()));
					this.wakeup.await(seen, this.queue.spec().pollInterval().toNanos());
					continue;
				}
				for (Delivery<T> delivery : batch.messages()) {
					dispatch(delivery, slots);
				}
				if (batch.messages().size() >= free) {
					continue;
				}
				long sleep = batch.sleepNanos(this.queue.spec());
				if (sleep > 0) {
					this.wakeup.await(seen, sleep);
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
			catch (RuntimeException ex) {
				this.pollFailures.warn(ex);
			}
		}
	}

	private void dispatch(Delivery<T> delivery, Semaphore slots) {
		Tracked<T> tracked = new Tracked<>(delivery);
		slots.acquireUninterruptibly();
		this.inFlight.add(tracked);
		Executor current = this.executor;
		try {
			if (current == null) {
				throw new RejectedExecutionException("stopped");
			}
			current.execute(() -> handle(tracked, slots));
		}
		catch (RejectedExecutionException ex) {
			release(tracked);
			finish(tracked, slots);
		}
	}

	private void handle(Tracked<T> tracked, Semaphore slots) {
		Delivery<T> delivery = tracked.delivery;
		try {
			if (!this.accepting) {
				release(tracked);
				return;
			}
			try {
				this.handler.handle(delivery);
			}
			catch (Exception | Error ex) {
				if (ex instanceof InterruptedException) {
					Thread.currentThread().interrupt();
				}
				if (!delivery.isSettled()) {
					settle(() -> delivery.retry(describe(ex)), delivery, "retry");
				}
				return;
			}
			if (!delivery.isSettled()) {
				settle(delivery::ack, delivery, "ack");
			}
		}
		finally {
			finish(tracked, slots);
		}
	}

	private void settle(Runnable call, Delivery<T> delivery, String operation) {
		try {
			call.run();
		}
		catch (StaleDeliveryException ex) {
			logger.warn(ex.getMessage() + "; the handler overran the visibility timeout or the container stopped");
		}
		catch (IllegalStateException ex) {
			// Released by a stopping container while the handler still ran.
			logger.debug("Cannot " + operation + " " + delivery + ": " + ex.getMessage());
		}
		catch (RuntimeException ex) {
			// An outage: the handler's work stands, and the delivery comes back after its visibility timeout.
			this.pollFailures.warn(ex, "cannot " + operation + " " + delivery
					+ "; it is delivered again after the visibility timeout");
			this.queue.parts().listeners.notify((l) -> l.onSettleFailed(this.queue.name(), operation));
		}
	}

	private void finish(Tracked<T> tracked, Semaphore slots) {
		if (this.inFlight.remove(tracked)) {
			slots.release();
		}
		this.wakeup.signal();
	}

	private void release(Tracked<T> tracked) {
		try {
			Stages.join(tracked.delivery.releaseAsync());
		}
		catch (RuntimeException ex) {
			logger.debug("Cannot give back " + tracked.delivery + "; it comes back after the visibility timeout", ex);
		}
	}

	private void awaitHandlers(long nanos) {
		long deadline = System.nanoTime() + nanos;
		while (!this.inFlight.isEmpty()) {
			long seen = this.wakeup.generation();
			long left = deadline - System.nanoTime();
			if (left <= 0) {
				return;
			}
			try {
				this.wakeup.await(seen, Math.min(left, TimeUnit.MILLISECONDS.toNanos(50)));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
		}
	}

	/** Gives back at once the messages whose handlers did not finish in time, all in parallel. */
	private void releaseRemaining() {
		List<CompletableFuture<Void>> releases = new ArrayList<>();
		for (Tracked<T> tracked : this.inFlight) {
			if (!tracked.delivery.isSettled()) {
				try {
					releases.add(tracked.delivery.releaseAsync().toCompletableFuture());
				}
				catch (IllegalStateException ex) {
					// Settled meanwhile by its handler.
				}
			}
		}
		try {
			CompletableFuture.allOf(releases.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | TimeoutException ex) {
			logger.warn("Not every unfinished message of queue '" + this.queue.name()
					+ "' could be given back; the rest come back after the visibility timeout: " + ex.getMessage());
		}
		this.inFlight.clear();
	}

	/** The watchdog: one script call extends every unsettled delivery of this container. */
	private void extendVisibility() {
		List<Delivery<T>> held = new ArrayList<>();
		for (Tracked<T> tracked : this.inFlight) {
			if (!tracked.delivery.isSettled()) {
				held.add(tracked.delivery);
			}
		}
		if (held.isEmpty()) {
			return;
		}
		List<String[]> pairs = new ArrayList<>(held.size());
		for (Delivery<T> delivery : held) {
			pairs.add(new String[] { delivery.id(), delivery.token() });
		}
		try {
			boolean[] extended = Stages.join(this.queue.parts().scripts.extend(this.queue.keys(), pairs,
					this.queue.spec().visibilityTimeout().toMillis(), null));
			for (int i = 0; i < extended.length; i++) {
				if (!extended[i] && !held.get(i).isSettled()) {
					Delivery<T> lost = held.get(i);
					this.queue.parts().listeners.notify((l) -> l.onStale(this.queue.name(), "extend"));
					logger.warn("Lost the visibility of " + lost + ": it was taken back and may be delivered again");
				}
			}
		}
		catch (RuntimeException ex) {
			this.pollFailures.warn(ex, "visibility not extended this time");
		}
	}

	private static String describe(Throwable failure) {
		String message = failure.getMessage();
		String text = failure.getClass().getName() + ((message != null) ? ": " + message : "");
		return (text.length() > 1000) ? text.substring(0, 1000) + "..." : text;
	}

	private static void joinQuietly(Thread thread) {
		boolean interrupted = false;
		while (true) {
			try {
				thread.join();
				break;
			}
			catch (InterruptedException ex) {
				interrupted = true;
			}
		}
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
	}

	private static final class Tracked<T> {

		final Delivery<T> delivery;

		Tracked(Delivery<T> delivery) {
			this.delivery = delivery;
		}

	}

}
