package io.rediskit.queue;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.ReentrantLock;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.task.SimpleAsyncTaskExecutor;
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
 * destroyed by {@link #stop()}.
 */
final class QueueSignals {

	private static final Log logger = LogFactory.getLog(QueueSignals.class);

	private final RedisConnectionFactory connectionFactory;

	private final ReentrantLock lock = new ReentrantLock();

	private final Map<String, List<Runnable>> channels = new ConcurrentHashMap<>();

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
		this.lock.lock();
		try {
			List<Runnable> watchers = this.channels.get(channel);
			if (watchers == null) {
				watchers = new CopyOnWriteArrayList<>();
				this.channels.put(channel, watchers);
				subscribe(channel, watchers);
			}
			if (!watchers.contains(wake)) {
				watchers.add(wake);
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	void unwatch(String channel, Runnable wake) {
		List<Runnable> watchers = this.channels.get(channel);
		if (watchers != null) {
			watchers.remove(wake);
		}
	}

	private void subscribe(String channel, List<Runnable> watchers) {
		if (this.closed) {
			return;
		}
		try {
			container().addMessageListener((message, pattern) -> watchers.forEach(Runnable::run),
					new ChannelTopic(channel));
		}
		catch (RuntimeException ex) {
			logger.warn("Cannot subscribe to queue wake-ups on " + channel + "; consumers poll every poll interval",
					ex);
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

	/** Destroys the subscription; a later watch subscribes again. */
	void stop() {
		RedisMessageListenerContainer stopped;
		this.lock.lock();
		try {
			stopped = this.container;
			this.container = null;
			this.channels.clear();
		}
		finally {
			this.lock.unlock();
		}
		if (stopped != null) {
			try {
				stopped.destroy();
			}
			catch (Exception ex) {
				logger.debug("Closing the queue subscriber failed", ex);
			}
		}
	}

	void close() {
		this.closed = true;
		stop();
	}

	private static Executor defaultExecutor() {
		SimpleAsyncTaskExecutor executor = new SimpleAsyncTaskExecutor("redis-kit-queue-signals-");
		executor.setDaemon(true);
		return executor;
	}

}
