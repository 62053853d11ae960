package io.rediskit.queue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Supplier;

import io.rediskit.support.Background;
import io.rediskit.support.Subscriptions;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The wake-up notifications of one registry: the scripts publish on a queue's channel when they make a message
 * due earlier than any before (enqueue, retry) or ready at once (release, requeue, redrive), and every local
 * consumer of that queue wakes. A channel is subscribed when the first consumer watches it and stays
 * subscribed: channels are bounded by the configured queues.
 * <p>
 * Notifications are an optimisation: consumers also wake at the earliest due time they know and poll every
 * {@link QueueSpec#pollInterval()}, so a lost notification or a subscription that is down costs latency,
 * never a message. Subscribing is the shared {@link Subscriptions}' job (a bounded wait for the confirmation,
 * subscribed again after a reconnect), on the registry's {@link Background}; the connection is opened on the
 * first watch, never in a constructor, and closed by {@link #stop()}, which never waits for a subscription in
 * progress.
 */
final class QueueSignals {

	private static final Log logger = LogFactory.getLog(QueueSignals.class);

	private final RedisConnectionFactory connectionFactory;

	private final Supplier<Background> background;

	private final ReentrantLock lock = new ReentrantLock();

	private final Map<String, List<Runnable>> channels = new ConcurrentHashMap<>();

	private final Map<String, List<Consumer<String>>> messageChannels = new ConcurrentHashMap<>();

	private @Nullable Subscriptions subscriptions;

	private volatile boolean closed;

	/**
	 * @param background the registry's threads, asked for on the first watch
	 */
	QueueSignals(RedisConnectionFactory connectionFactory, Supplier<Background> background) {
		this.connectionFactory = connectionFactory;
		this.background = background;
	}

	/**
	 * Wakes {@code wake} on every notification of a channel until {@link #unwatch}. Returns once the channel is
	 * subscribed, or after the subscription's bounded wait (consumers poll meanwhile).
	 * @param channel the queue's wake-up channel
	 * @param wake run on the driver's thread: it must only signal
	 */
	void watch(String channel, Runnable wake) {
		CompletableFuture<Void> subscribed = null;
		this.lock.lock();
		try {
			List<Runnable> watchers = this.channels.get(channel);
			if (watchers == null) {
				watchers = new CopyOnWriteArrayList<>();
				this.channels.put(channel, watchers);
				List<Runnable> subscribers = watchers;
				subscribed = subscribe(channel, (message) -> subscribers.forEach(Runnable::run));
			}
			if (!watchers.contains(wake)) {
				watchers.add(wake);
			}
		}
		finally {
			this.lock.unlock();
		}
		await(channel, subscribed);
	}

	/**
	 * Hands every message of a channel to {@code listener} until {@link #unlisten}: the ids of messages cancelled
	 * in flight. Like the wake-ups, a lost message costs only what it would have sped up.
	 * @param channel the queue's cancel channel
	 * @param listener run on the driver's thread with the message's text: it must not block
	 */
	void listen(String channel, Consumer<String> listener) {
		CompletableFuture<Void> subscribed = null;
		this.lock.lock();
		try {
			List<Consumer<String>> listeners = this.messageChannels.get(channel);
			if (listeners == null) {
				listeners = new CopyOnWriteArrayList<>();
				this.messageChannels.put(channel, listeners);
				List<Consumer<String>> subscribers = listeners;
				subscribed = subscribe(channel, (message) -> {
					String text = new String(message, StandardCharsets.UTF_8);
					subscribers.forEach((each) -> each.accept(text));
				});
			}
			if (!listeners.contains(listener)) {
				listeners.add(listener);
			}
		}
		finally {
			this.lock.unlock();
		}
		await(channel, subscribed);
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

	/** Under the lock: the subscription a channel's first watcher makes, on the current connection. */
	private @Nullable CompletableFuture<Void> subscribe(String channel, Consumer<byte[]> handler) {
		if (this.closed) {
			return null;
		}
		Subscriptions current = this.subscriptions;
		if (current == null) {
			current = Subscriptions.of(this.connectionFactory, this.background.get(), "the queues' wake-up channels");
			this.subscriptions = current;
		}
		return current.subscribe(channel, handler);
	}

	/** Without the lock: the wait is bounded by the subscription's own, and a stop must not wait for it. */
	private static void await(String channel, @Nullable CompletableFuture<Void> subscribed) {
		if (subscribed == null) {
			return;
		}
		try {
			subscribed.join();
		}
		catch (CompletionException | CancellationException ex) {
			logger.debug("Queue wake-ups on " + channel + " are not subscribed yet; consumers poll every poll"
					+ " interval meanwhile", ex);
		}
	}

	/** Closes the subscriptions without waiting; a later watch subscribes again. */
	void stop() {
		Subscriptions stopped;
		this.lock.lock();
		try {
			stopped = this.subscriptions;
			this.subscriptions = null;
			this.channels.clear();
			this.messageChannels.clear();
		}
		finally {
			this.lock.unlock();
		}
		if (stopped != null) {
			stopped.close();
		}
	}

	void close() {
		this.closed = true;
		stop();
	}

}
