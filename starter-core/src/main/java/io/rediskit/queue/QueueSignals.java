package io.rediskit.queue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

import io.rediskit.support.BoundedStop;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

/**
 * The wake-up notifications of one registry: the scripts publish on a queue's channel when they make a message
 * due earlier than any before (enqueue, retry) or ready at once (release, requeue, redrive), and every local
 * consumer of that queue wakes. A channel is subscribed when the first consumer watches it and stays
 * subscribed: channels are bounded by the configured queues.
 * <p>
 * Notifications are an optimisation: consumers also wake at the earliest due time they know and poll every
 * {@link QueueSpec#pollInterval()}, so a lost notification or a subscription that is down costs latency,
 * never a message. The subscription container is created on the first watch, never in a constructor, and
 * destroyed by {@link #stop()}. A subscription is made outside this class's lock, so that a stop never waits for
 * one in progress.
 */
final class QueueSignals {

	private static final Log logger = LogFactory.getLog(QueueSignals.class);

	private final RedisConnectionFactory connectionFactory;

	private final ReentrantLock lock = new ReentrantLock();

	private final Map<String, List<Runnable>> channels = new ConcurrentHashMap<>();

	private final Map<String, List<Consumer<String>>> messageChannels = new ConcurrentHashMap<>();

	private @Nullable Executor givenExecutor;

	private @Nullable RedisMessageListenerContainer container;

	private volatile boolean closed;

	QueueSignals(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
	}

	void setExecutor(@Nullable Executor executor) {
		this.givenExecutor = executor;
	}

	/**
	 * Wakes {@code wake} on every notification of a channel until {@link #unwatch}.
	 * @param channel the queue's wake-up channel
	 * @param wake run on the driver's thread: it must only signal
	 */
	void watch(String channel, Runnable wake) {
		Subscription subscription = null;
		this.lock.lock();
		try {
			List<Runnable> watchers = this.channels.get(channel);
			if (watchers == null) {
				watchers = new CopyOnWriteArrayList<>();
				this.channels.put(channel, watchers);
				List<Runnable> subscribed = watchers;
				subscription = subscription(channel, (message, pattern) -> subscribed.forEach(Runnable::run));
			}
			if (!watchers.contains(wake)) {
				watchers.add(wake);
			}
		}
		finally {
			this.lock.unlock();
		}
		subscribe(subscription);
	}

	/**
	 * Hands every message of a channel to {@code listener} until {@link #unlisten}: the ids of messages cancelled
	 * in flight. Like the wake-ups, a lost message costs only what it would have sped up.
	 * @param channel the queue's cancel channel
	 * @param listener run on the driver's thread with the message's text: it must not block
	 */
	void listen(String channel, Consumer<String> listener) {
		Subscription subscription = null;
		this.lock.lock();
		try {
			List<Consumer<String>> listeners = this.messageChannels.get(channel);
			if (listeners == null) {
				listeners = new CopyOnWriteArrayList<>();
				this.messageChannels.put(channel, listeners);
				List<Consumer<String>> subscribed = listeners;
				subscription = subscription(channel, (message, pattern) -> {
					String text = new String(message.getBody(), StandardCharsets.UTF_8);
					subscribed.forEach((each) -> each.accept(text));
				});
			}
			if (!listeners.contains(listener)) {
				listeners.add(listener);
			}
		}
		finally {
			this.lock.unlock();
		}
		subscribe(subscription);
	}

	void unlisten(String channel, Consumer<String> listener) {
		List<Consumer<String>> listeners = this.messageChannels.get(channel);
		if (listeners != null) {
			listeners.remove(listener);
		}
	}

	void unwatch(String channel, Runnable wake) {
		List<Runnable> watchers = this.channels.get(channel);
		if (watchers != null) {
			watchers.remove(wake);
		}
	}

	/** Under the lock: the subscription a channel's first watcher makes, on the current container. */
	private @Nullable Subscription subscription(String channel, MessageListener listener) {
		if (this.closed) {
			return null;
		}
		return new Subscription(container(), new ChannelTopic(channel), listener);
	}

	/**
	 * Without the lock: the container's subscription waits for Redis, and for good when its connection fails
	 * under it, so a stop must not wait for it. On a container stopped meanwhile it subscribes nothing.
	 */
	private static void subscribe(@Nullable Subscription subscription) {
		if (subscription == null) {
			return;
		}
		try {
			subscription.container.addMessageListener(subscription.listener, subscription.topic);
		}
		catch (RuntimeException ex) {
			logger.warn("Cannot subscribe to queue wake-ups on " + subscription.topic.getTopic()
					+ "; consumers poll every poll interval", ex);
		}
	}

	private RedisMessageListenerContainer container() {
		RedisMessageListenerContainer current = this.container;
		if (current != null) {
			return current;
		}
		RedisMessageListenerContainer created = new RedisMessageListenerContainer();
		created.setConnectionFactory(this.connectionFactory);
		// Listeners only signal: run them on the driver's thread, not a thread per message.
		created.setTaskExecutor(Runnable::run);
		created.setSubscriptionExecutor((this.givenExecutor != null) ? this.givenExecutor : defaultExecutor());
		created.setBeanName("redis-kit-queue-signals");
		created.afterPropertiesSet();
		created.start();
		this.container = created;
		return created;
	}

	/**
	 * Destroys the subscription; a later watch subscribes again. Returns within {@link BoundedStop#TIMEOUT}: a
	 * container that does not stop by then is abandoned with a warning.
	 */
	void stop() {
		RedisMessageListenerContainer stopped;
		this.lock.lock();
		try {
			stopped = this.container;
			this.container = null;
			this.channels.clear();
			this.messageChannels.clear();
		}
		finally {
			this.lock.unlock();
		}
		if (stopped != null) {
			BoundedStop.run("the queues' wake-up subscriptions", stopped::destroy);
		}
	}

	void close() {
		this.closed = true;
		stop();
	}

	private record Subscription(RedisMessageListenerContainer container, ChannelTopic topic,
			MessageListener listener) {
	}

	private static Executor defaultExecutor() {
		SimpleAsyncTaskExecutor executor = new SimpleAsyncTaskExecutor("redis-kit-queue-signals-");
		executor.setDaemon(true);
		return executor;
	}

}
