package io.rediskit.autoconfigure.queue;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;

import io.rediskit.queue.QueueListenerContainer;
import io.rediskit.queue.QueueRegistry;
import io.rediskit.queue.RedisQueue;
import io.rediskit.support.BoundedStop;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;

/**
 * The listener containers of the application's {@link io.rediskit.queue.QueueListener @QueueListener} methods:
 * the discovery ({@code QueueListenerProcessor}) registers each checked method here, and this registry creates a
 * {@link QueueListenerContainer} for each when the application starts, with the {@code redis-kit.queue.listener}
 * settings, and stops them all in parallel when it stops, without a thread of its own: each container stops
 * asynchronously and the last one to finish tells the Spring container. Look containers up with
 * {@link #getContainers()}, for example to stop one.
 */
public final class QueueListenerContainerRegistry implements SmartLifecycle {

	private final Settings settings;

	private final List<QueueListenerEndpoint> endpoints = new CopyOnWriteArrayList<>();

	private final List<QueueListenerContainer<?>> containers = new CopyOnWriteArrayList<>();

	private final Runnable beforeStart;

	private volatile boolean running;

	/**
	 * @param settings where the containers' queues, threads and limits come from
	 * @param beforeStart run first on every start: registers the methods found since the last check
	 */
	QueueListenerContainerRegistry(Settings settings, Runnable beforeStart) {
		this.settings = settings;
		this.beforeStart = beforeStart;
	}

	/**
	 * Registers a checked method.
	 * @throws IllegalStateException if another method consumes the same queue as another payload type: the
	 * containers of one queue compete for its messages, so each would take some of the other's and dead-letter
	 * those its type cannot read, or read them wrongly
	 */
	void register(QueueListenerEndpoint endpoint) {
		Objects.requireNonNull(endpoint, "endpoint");
		for (QueueListenerEndpoint other : this.endpoints) {
			if (other.queue().equals(endpoint.queue()) && !other.payloadType().equals(endpoint.payloadType())) {
				throw new IllegalStateException("queue \"" + endpoint.queue() + "\" is consumed as "
						+ other.payloadType().getName() + " by " + other.where() + ", and here as "
						+ endpoint.payloadType().getName() + "; one queue has one payload type, as its listeners"
						+ " compete for each message: take the same type, or use a queue per type");
			}
		}
		this.endpoints.add(endpoint);
	}

	/** @return the running containers, one per {@code @QueueListener} method */
	public List<QueueListenerContainer<?>> getContainers() {
		return List.copyOf(this.containers);
	}

	@Override
	public void start() {
		if (this.running) {
			return;
		}
		if (!this.settings.properties().getListener().isAutoStartup()) {
			return;
		}
		this.beforeStart.run();
		QueueRegistry queues = this.settings.queues();
		List<QueueListenerContainer<?>> created = new ArrayList<>();
		for (QueueListenerEndpoint endpoint : this.endpoints) {
			created.add(container(queues, endpoint));
		}
		this.containers.addAll(created);
		created.forEach(QueueListenerContainer::start);
		this.running = true;
	}

	private QueueListenerContainer<?> container(QueueRegistry queues, QueueListenerEndpoint endpoint) {
		RedisQueue<Object> queue;
		try {
			@SuppressWarnings("unchecked")
			RedisQueue<Object> typed = (RedisQueue<Object>) queues.get(endpoint.queue(), endpoint.payloadType());
			queue = typed;
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalStateException(endpoint.where() + ": " + ex.getMessage(), ex);
		}
		QueueProperties.Listener listener = this.settings.properties().getListener();
		QueueListenerContainer<Object> container = queues.createContainer(queue, endpoint.handler(),
				endpoint.concurrency());
		container.setShutdownTimeout(listener.getShutdownTimeout());
		container.setListenerId(endpoint.id());
		try {
			container.setAckLinger(listener.getAckLinger());
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalStateException("redis-kit.queue.listener.ack-linger for " + endpoint.where() + ": "
					+ ex.getMessage(), ex);
		}
		if (listener.getPrefetch() != null) {
			try {
				container.setPrefetch(listener.getPrefetch());
			}
			catch (IllegalArgumentException ex) {
				throw new IllegalStateException("redis-kit.queue.listener.prefetch for " + endpoint.where() + ": "
						+ ex.getMessage(), ex);
			}
		}
		if (listener.getExecutor() == QueueProperties.ExecutorChoice.APPLICATION) {
			Executor executor = this.settings.applicationExecutor();
			if (executor == null) {
				throw new IllegalStateException("redis-kit.queue.listener.executor=application needs the"
						+ " application's 'applicationTaskExecutor' bean, and there is none; use 'dedicated'");
			}
			container.setExecutor(executor);
		}
		else {
			container.setVirtualThreads(this.settings.virtualThreads());
		}
		return container;
	}

	/**
	 * Stops every container in parallel and returns when all have stopped, or at the latest after the listeners'
	 * shutdown timeout and {@link BoundedStop#TIMEOUT} more, the stops going on in the background then.
	 */
	@Override
	public void stop() {
		CompletableFuture<Void> done = new CompletableFuture<>();
		stop(() -> done.complete(null));
		BoundedStop.await(done,
				this.settings.properties().getListener().getShutdownTimeout().plus(BoundedStop.TIMEOUT),
				"the @QueueListener containers");
	}

	/**
	 * Stops every container in parallel, without blocking: the shutdown takes one shutdown timeout, not one per
	 * container.
	 * @param callback run when the last container stopped
	 */
	@Override
	public void stop(Runnable callback) {
		List<QueueListenerContainer<?>> stopping = List.copyOf(this.containers);
		this.containers.clear();
		this.running = false;
		if (stopping.isEmpty()) {
			callback.run();
			return;
		}
		AtomicInteger left = new AtomicInteger(stopping.size());
		for (QueueListenerContainer<?> container : stopping) {
			container.stop(() -> {
				if (left.decrementAndGet() == 0) {
					callback.run();
				}
			});
		}
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return QueueListenerContainer.PHASE;
	}

	/** Where the containers' queues, threads and settings come from, looked up when they start. */
	interface Settings {

		QueueRegistry queues();

		QueueProperties properties();

		/** @return the application's task executor, or {@code null} if it has none */
		@Nullable Executor applicationExecutor();

		/** @return whether dedicated handler threads are virtual ({@code spring.threads.virtual.enabled}) */
		boolean virtualThreads();

	}

}
