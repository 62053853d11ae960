package io.rediskit.lock;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

/**
 * Wakes waiters when a lock is released. A channel is subscribed while at least one local thread waits for
 * that lock and unsubscribed when the last one leaves, so subscriptions are bounded by the waiting threads.
 * Each message wakes one local waiter; waiters also wake on their own after a bounded time, so a lost
 * message costs latency, never progress.
 */
final class ReleaseSignals implements AutoCloseable {

	private final RedisMessageListenerContainer container;

	// Subscribing does I/O: a ReentrantLock, not synchronized, keeps virtual threads unpinned.
	private final ReentrantLock lock = new ReentrantLock();

	private final Map<String, Channel> channels = new HashMap<>();

	ReleaseSignals(RedisConnectionFactory connectionFactory) {
		this.container = new RedisMessageListenerContainer();
		this.container.setConnectionFactory(connectionFactory);
		// The listener only releases a permit: run it on the driver's thread instead of a thread per message.
		this.container.setTaskExecutor(Runnable::run);
		this.container.setBeanName("redis-kit-lock-signals");
		this.container.afterPropertiesSet();
		this.container.start();
	}

	/**
	 * Starts listening for releases of a lock; close the returned subscription when done waiting.
	 */
	Subscription subscribe(String channelName) {
		this.lock.lock();
		try {
			Channel channel = this.channels.get(channelName);
			if (channel == null) {
				channel = new Channel(channelName);
				this.container.addMessageListener(channel, channel.topic);
				this.channels.put(channelName, channel);
			}
			channel.waiters++;
			return new Subscription(channel);
		}
		finally {
			this.lock.unlock();
		}
	}

	/** @return how many channels are subscribed now, for tests of bounded state */
	int subscribedChannels() {
		this.lock.lock();
		try {
			return this.channels.size();
		}
		finally {
			this.lock.unlock();
		}
	}

	private void leave(Channel channel) {
		this.lock.lock();
		try {
			channel.waiters--;
			if (channel.waiters == 0) {
				this.channels.remove(channel.topic.getTopic());
				this.container.removeMessageListener(channel, channel.topic);
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	@Override
	public void close() throws Exception {
		this.container.destroy();
	}

	private static final class Channel implements MessageListener {

		final ChannelTopic topic;

		final Semaphore releases = new Semaphore(0);

		int waiters;

		Channel(String name) {
			this.topic = new ChannelTopic(name);
		}

		@Override
		public void onMessage(Message message, byte[] pattern) {
			this.releases.release();
		}

	}

	/** One waiter's interest in one lock. */
	final class Subscription implements AutoCloseable {

		private final Channel channel;

		private boolean closed;

		private Subscription(Channel channel) {
			this.channel = channel;
		}

		/**
		 * Waits for a release message or the timeout.
		 * @return whether a release was signalled
		 */
		boolean await(long timeoutNanos) throws InterruptedException {
			return this.channel.releases.tryAcquire(timeoutNanos, TimeUnit.NANOSECONDS);
		}

		@Override
		public void close() {
			if (!this.closed) {
				this.closed = true;
				leave(this.channel);
			}
		}

	}

}
