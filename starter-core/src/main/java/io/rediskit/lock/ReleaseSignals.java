package io.rediskit.lock;

import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.task.SimpleAsyncTaskExecutor;

import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

/**
 * The threads of one factory that wait for locks, and how they are woken.
 * <ul>
 * <li>A lock's release channel is subscribed while at least one local thread waits for it and unsubscribed
 * when the last one leaves, so subscriptions are bounded by the waiting threads. Each release message wakes
 * one local waiter; waiters also wake on their own after a bounded time, so a lost message costs latency,
 * never progress.</li>
 * <li>When a local owner releases a lock that local threads wait for, it may hand the lock straight to the
 * longest-waiting of them in its release script ({@link #claimNext(String)}): no pub/sub round trip and no
 * race with other clients. At most {@value #MAX_LOCAL_HANDOFFS} hand-offs in a row, then the lock is
 * released to everyone, so waiters in other JVMs get their turn.</li>
 * </ul>
 */
final class ReleaseSignals implements AutoCloseable {

	static final int MAX_LOCAL_HANDOFFS = 8;

	private static final Log logger = LogFactory.getLog(ReleaseSignals.class);

	private final RedisMessageListenerContainer container;

	private final ChannelTopic keepAlive;

	// Joining and leaving may subscribe and unsubscribe: a ReentrantLock, not synchronized, keeps virtual
	// threads unpinned. Releases only read the map, without the lock.
	private final ReentrantLock lock = new ReentrantLock();

	private final Map<String, Channel> channels = new ConcurrentHashMap<>();

	private boolean listening;

	ReleaseSignals(RedisConnectionFactory connectionFactory, String keepAliveChannel) {
		this.keepAlive = new ChannelTopic(keepAliveChannel);
		this.container = new RedisMessageListenerContainer();
		this.container.setConnectionFactory(connectionFactory);
		// The listener only unparks a thread: run it on the driver's thread instead of a thread per message.
		this.container.setTaskExecutor(Runnable::run);
		// Only drivers with blocking subscriptions use this thread; Lettuce subscribes without one.
		this.container.setSubscriptionExecutor(new SimpleAsyncTaskExecutor("redis-kit-lock-subscriber-"));
		this.container.setBeanName("redis-kit-lock-signals");
		this.container.afterPropertiesSet();
		this.container.start();
	}

	/** Registers the calling thread as a waiter for a lock; {@link #leave(Waiter)} when done waiting. */
	Waiter join(String channelName, String owner, long leaseMillis) {
		this.lock.lock();
		try {
			Channel channel = this.channels.get(channelName);
			boolean subscribed = channel == null;
			if (subscribed) {
				channel = new Channel(channelName);
				subscribe(channel);
				this.channels.put(channelName, channel);
			}
			channel.members++;
			Waiter waiter = new Waiter(channel, owner, leaseMillis, subscribed);
			channel.queue.add(waiter);
			return waiter;
		}
		finally {
			this.lock.unlock();
		}
	}

	void leave(Waiter waiter) {
		Channel channel = waiter.channel;
		channel.queue.remove(waiter);
		if (waiter.signalled) {
			// A wake-up this waiter did not use goes to the next one.
			channel.signalNext();
		}
		this.lock.lock();
		try {
			channel.members--;
			if (channel.members == 0) {
				this.channels.remove(channel.topic.getTopic());
				unsubscribe(channel);
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Subscribes a lock's channel. The first subscription also subscribes a channel that is never left, so the
	 * container keeps its pub/sub connection instead of reconnecting whenever the last waiter leaves. A
	 * failure costs latency only: the waiters poll.
	 */
	private void subscribe(Channel channel) {
		try {
			if (!this.listening) {
				this.container.addMessageListener((message, pattern) -> {
				}, this.keepAlive);
				this.listening = true;
			}
			this.container.addMessageListener(channel, channel.topic);
		}
		catch (RuntimeException ex) {
			logger.warn("Cannot subscribe to lock releases on " + channel.topic.getTopic()
					+ "; waiters poll until the subscription works", ex);
		}
	}

	private void unsubscribe(Channel channel) {
		try {
			this.container.removeMessageListener(channel, channel.topic);
		}
		catch (RuntimeException ex) {
			logger.debug("Cannot unsubscribe from " + channel.topic.getTopic(), ex);
		}
	}

	/**
	 * Claims the longest-waiting local waiter of a lock for a hand-off, unless the lock was handed over locally
	 * {@value #MAX_LOCAL_HANDOFFS} times in a row. The caller must resolve the claimed waiter with
	 * {@link Waiter#handOver(long)} or {@link Waiter#retry()}.
	 * @return the claimed waiter, or {@code null} for a release to everyone
	 */
	@Nullable Waiter claimNext(String channelName) {
		Channel channel = this.channels.get(channelName);
		if (channel == null) {
			return null;
		}
		if (channel.handoffs.incrementAndGet() > MAX_LOCAL_HANDOFFS) {
			channel.handoffs.set(0);
			return null;
		}
		for (Waiter waiter : channel.queue) {
			if (waiter.state.compareAndSet(Waiter.WAITING, Waiter.CLAIMED)) {
				return waiter;
			}
		}
		channel.handoffs.set(0);
		return null;
	}

	/** @return whether local threads wait for the lock now */
	boolean hasWaiters(String channelName) {
		Channel channel = this.channels.get(channelName);
		return channel != null && !channel.queue.isEmpty();
	}

	/** @return how many local threads wait for the lock now, for tests */
	int waiting(String channelName) {
		Channel channel = this.channels.get(channelName);
		return (channel != null) ? channel.queue.size() : 0;
	}

	/** @return how many channels are subscribed now, for tests of bounded state */
	int subscribedChannels() {
		return this.channels.size();
	}

	@Override
	public void close() throws Exception {
		this.container.destroy();
	}

	private static final class Channel implements MessageListener {

		final ChannelTopic topic;

		final Queue<Waiter> queue = new ConcurrentLinkedQueue<>();

		final AtomicInteger handoffs = new AtomicInteger();

		/** Waiters joined and not yet left; guarded by the signals' lock. */
		int members;

		Channel(String name) {
			this.topic = new ChannelTopic(name);
		}

		@Override
		public void onMessage(Message message, byte[] pattern) {
			signalNext();
		}

		void signalNext() {
			for (Waiter waiter : this.queue) {
				if (waiter.state.get() == Waiter.WAITING && !waiter.signalled) {
					waiter.signal();
					return;
				}
			}
		}

	}

	/**
	 * One thread waiting for one lock. {@code WAITING}: it retries on a signal or after its sleep.
	 * {@code CLAIMED}: a releaser is handing the lock to it and will resolve the claim. {@code GONE}: it left.
	 */
	static final class Waiter {

		static final int WAITING = 0;

		static final int CLAIMED = 1;

		static final int GONE = 2;

		final Channel channel;

		final String owner;

		/** The lease the waiter asked for, which a hand-off gives it. */
		final long leaseMillis;

		/**
		 * Whether joining subscribed the channel: a release just before could not have woken anyone, so the
		 * waiter tries again at once. Otherwise earlier waiters were already listening and one of them moves on.
		 */
		final boolean subscribed;

		final Thread thread = Thread.currentThread();

		final AtomicInteger state = new AtomicInteger(WAITING);

		volatile boolean signalled;

		private volatile boolean resolved;

		private volatile long handedToken;

		private Waiter(Channel channel, String owner, long leaseMillis, boolean subscribed) {
			this.channel = channel;
			this.owner = owner;
			this.leaseMillis = leaseMillis;
			this.subscribed = subscribed;
		}

		void signal() {
			this.signalled = true;
			LockSupport.unpark(this.thread);
		}

		/**
		 * Sleeps until signalled, claimed, interrupted or the time is up.
		 * @return whether the thread was interrupted (the flag is cleared)
		 */
		boolean park(long nanos) {
			long deadline = System.nanoTime() + nanos;
			while (!this.signalled && this.state.get() == WAITING) {
				long left = deadline - System.nanoTime();
				if (left <= 0) {
					break;
				}
				LockSupport.parkNanos(this, left);
				if (Thread.interrupted()) {
					return true;
				}
			}
			this.signalled = false;
			return false;
		}

		boolean isClaimed() {
			return this.state.get() == CLAIMED;
		}

		/** @return true if the waiter left; false if it was claimed and must take its resolution */
		boolean withdraw() {
			return this.state.compareAndSet(WAITING, GONE) || this.state.get() == GONE;
		}

		/**
		 * Waits for the releaser that claimed this waiter; short, since the releaser only runs its script.
		 * @return the fencing token handed over, or 0 when the waiter must try again itself
		 */
		long awaitResolution() {
			boolean interrupted = false;
			while (!this.resolved) {
				LockSupport.park(this);
				if (Thread.interrupted()) {
					interrupted = true;
				}
			}
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
			return this.handedToken;
		}

		/** After a claim that handed nothing over: wait again. */
		void rearm() {
			this.resolved = false;
			this.state.set(WAITING);
		}

		/** After a withdrawal that did not end the wait (an interrupt an uninterruptible wait ignores). */
		void rejoin() {
			this.state.compareAndSet(GONE, WAITING);
		}

		/** The release script made this waiter's owner the holder. */
		void handOver(long fencingToken) {
			this.handedToken = fencingToken;
			this.resolved = true;
			LockSupport.unpark(this.thread);
		}

		/**
		 * Nothing was handed over, or the outcome is unknown: the waiter tries again itself; should the hand-off
		 * have taken effect after all, its attempt adopts the lock as one hold.
		 */
		void retry() {
			this.resolved = true;
			LockSupport.unpark(this.thread);
		}

	}

}
