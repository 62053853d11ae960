package io.rediskit.support;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The local waiters of one registry (blocked threads and asynchronous acquisitions), and how they are woken.
 * <ul>
 * <li>A lock's release channel is subscribed while at least one local thread waits for it and unsubscribed
 * when the last one leaves, so subscriptions are bounded by the waiting threads. Each release message wakes
 * one local waiter; waiters also wake on their own after a bounded time, so a lost message costs latency,
 * never progress.</li>
 * <li>When a local owner releases a lock (or a semaphore's permits) that local threads wait for, it may hand the
 * lock (the permits) straight to the longest-waiting of them in its release script ({@link #claimNext(String)}): no pub/sub round trip and no
 * race with other clients. At most {@value #MAX_LOCAL_HANDOFFS} hand-offs in a row, then the lock is
 * released to everyone, so waiters in other JVMs get their turn. Only blocked threads are handed the lock;
 * asynchronous waiters are woken by the release message and try again.</li>
 * <li>Subscribing is the shared {@link Subscriptions}' job: it never blocks the waiter (the command is sent, its
 * confirmation awaited for a bounded time), subscribes again after a reconnect, and keeps the order of joins and
 * leaves, which are made under this class's lock. A waiter therefore never waits inside a subscription, and
 * stopping never waits for one in progress.</li>
 * </ul>
 * The subscriptions are opened by {@link #start(Background)} and closed by {@link #stop()}, never by the
 * constructor; while stopped, waiters poll.
 * <p>
 * Internal to redis-kit, shared by the lock family (release channels, hand-off) and the count-down latch
 * ({@code io.rediskit.latch}: opened channels, waiters that only listen), as {@link Subscriptions} is by every area.
 */
public final class ReleaseSignals {

	public static final int MAX_LOCAL_HANDOFFS = 8;

	/** The release message that wakes every local waiter of a lock; an owner id wakes that owner's waiter. */
	public static final String WAKE_ALL = "*";

	private final RedisConnectionFactory connectionFactory;

	private final String what;

	// Written under the lock; read without it by the releases, which only look a waiter up.
	private volatile @Nullable Subscriptions subscriptions;

	// Guards the channels' members and the order of the subscriptions. A ReentrantLock, not synchronized, keeps
	// virtual threads unpinned. Releases only read the map, without the lock.
	private final ReentrantLock lock = new ReentrantLock();

	private final Map<String, Channel> channels = new ConcurrentHashMap<>();

	/**
	 * @param what the registry's release channels, for the log: "the lock's release channels"
	 */
	public ReleaseSignals(RedisConnectionFactory connectionFactory, String what) {
		this.connectionFactory = connectionFactory;
		this.what = what;
	}

	/**
	 * Opens the subscriptions and subscribes the channels local waiters wait on.
	 * @param background where the pub/sub connection is opened and its retries run
	 */
	public void start(Background background) {
		this.lock.lock();
		try {
			if (this.subscriptions != null) {
				return;
			}
			this.subscriptions = Subscriptions.of(this.connectionFactory, background, this.what);
			this.channels.values().forEach(this::subscribe);
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Closes the subscriptions; waiters that remain poll, and a later start subscribes their channels anew. Never
	 * waits: a subscription in progress ends on its own.
	 */
	public void stop() {
		Subscriptions stopped;
		this.lock.lock();
		try {
			stopped = this.subscriptions;
			this.subscriptions = null;
		}
		finally {
			this.lock.unlock();
		}
		if (stopped != null) {
			stopped.close();
		}
	}

	/**
	 * Registers the calling thread as a waiter for a lock; {@link #leave(Waiter)} when done waiting.
	 * @param owner the owner it acquires for
	 * @param leaseMillis the lease it asks for, which a hand-off gives it
	 */
	public Waiter join(String channelName, String owner, long leaseMillis) {
		return join(channelName, owner, leaseMillis, 1);
	}

	/**
	 * Registers the calling thread as a waiter for a number of a semaphore's permits; {@link #leave(Waiter)} when
	 * done waiting.
	 * @param permits the permits it asks for, which a hand-off gives it
	 */
	public Waiter join(String channelName, String owner, long leaseMillis, int permits) {
		Thread thread = Thread.currentThread();
		return join(channelName, owner, leaseMillis, permits, true, () -> LockSupport.unpark(thread));
	}

	/**
	 * Registers an asynchronous waiter, which is never handed the lock; {@link #leave(Waiter)} when done
	 * waiting.
	 * @param wake called, on the driver's thread, when a release message is for this waiter, and when the
	 * subscription its join requested is made
	 */
	public Waiter joinAsync(String channelName, String owner, long leaseMillis, Runnable wake) {
		return join(channelName, owner, leaseMillis, 1, false, wake);
	}

	private Waiter join(String channelName, String owner, long leaseMillis, int permits, boolean claimable,
			Runnable wake) {
		Waiter waiter;
		this.lock.lock();
		try {
			Channel channel = this.channels.get(channelName);
			boolean subscribed = channel == null;
			if (subscribed) {
				channel = new Channel(channelName);
				this.channels.put(channelName, channel);
				subscribe(channel);
			}
			channel.members++;
			waiter = new Waiter(channel, owner, leaseMillis, permits, subscribed, claimable, wake);
			channel.queue.add(waiter);
		}
		finally {
			this.lock.unlock();
		}
		if (waiter.subscribed) {
			waiter.channel.subscription.whenComplete((done, failure) -> wake.run());
		}
		return waiter;
	}

	public void leave(Waiter waiter) {
		Channel channel = waiter.channel;
		channel.queue.remove(waiter);
		if (waiter.signalled) {
			// A wake-up this waiter did not use goes to the next one.
			channel.signalNext();
		}
		else if (waiter.subscribed && !channel.subscription.isDone()) {
			// Waiters that joined meanwhile count on this one to try again once subscribed: one of them will.
			channel.subscription.whenComplete((done, failure) -> channel.signalNext());
		}
		this.lock.lock();
		try {
			channel.members--;
			if (channel.members == 0) {
				this.channels.remove(channel.name);
				Subscriptions current = this.subscriptions;
				if (current != null) {
					current.unsubscribe(channel.name);
				}
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Under the lock, so that subscriptions keep the order of joins and leaves: subscribes a channel and completes
	 * its subscription once made, failed (after the bounded wait) or dropped. A failure costs latency only: the
	 * waiters poll, and the subscription is asked for again until it is made.
	 */
	private void subscribe(Channel channel) {
		Subscriptions current = this.subscriptions;
		if (current == null) {
			// Stopped: the waiters poll.
			channel.subscription.complete(null);
			return;
		}
		current.subscribe(channel.name, channel::onMessage)
			.whenComplete((done, failure) -> channel.subscription.complete(null));
	}

	/**
	 * Claims the longest-waiting local waiter of a lock for a hand-off, unless the lock was handed over locally
	 * {@value #MAX_LOCAL_HANDOFFS} times in a row. The caller must resolve the claimed waiter with
	 * {@link Waiter#handOver(long)} or {@link Waiter#retry()}.
	 * @return the claimed waiter, or {@code null} for a release to everyone
	 */
	public @Nullable Waiter claimNext(String channelName) {
		Channel channel = this.channels.get(channelName);
		if (channel == null) {
			return null;
		}
		if (channel.handoffs.incrementAndGet() > MAX_LOCAL_HANDOFFS) {
			channel.handoffs.set(0);
			return null;
		}
		for (Waiter waiter : channel.queue) {
			if (waiter.claimable && waiter.state.compareAndSet(Waiter.WAITING, Waiter.CLAIMED)) {
				return waiter;
			}
		}
		channel.handoffs.set(0);
		return null;
	}

	/**
	 * Wakes the longest-waiting local waiter of a lock that has not been woken yet, as a release message would:
	 * a semaphore's acquirer that left permits free tells the waiter queued behind it.
	 */
	public void wakeNext(String channelName) {
		Channel channel = this.channels.get(channelName);
		if (channel != null) {
			channel.signalNext();
		}
	}

	/** @return whether local threads wait for the lock now */
	public boolean hasWaiters(String channelName) {
		Channel channel = this.channels.get(channelName);
		return channel != null && !channel.queue.isEmpty();
	}

	/** @return how many local threads wait for the lock now, for tests */
	public int waiting(String channelName) {
		Channel channel = this.channels.get(channelName);
		return (channel != null) ? channel.queue.size() : 0;
	}

	/** @return how many channels are subscribed now, for tests of bounded state */
	public int subscribedChannels() {
		return this.channels.size();
	}

	private static final class Channel {

		final String name;

		final Queue<Waiter> queue = new ConcurrentLinkedQueue<>();

		final AtomicInteger handoffs = new AtomicInteger();

		/** Completed once the subscription the first waiter's join requested is made, failed or dropped. */
		final CompletableFuture<Void> subscription = new CompletableFuture<>();

		/** Waiters joined and not yet left; guarded by the signals' lock. */
		int members;

		Channel(String name) {
			this.name = name;
		}

		/**
		 * A release message: {@value #WAKE_ALL} wakes every local waiter (a lock that many may share now, such as a
		 * read-write lock's), an owner id wakes that owner's waiter only (a fair lock's next in line, which may wait
		 * in another JVM), anything else wakes the next waiter.
		 */
		void onMessage(byte[] body) {
			if (body.length == 1 && body[0] == WAKE_ALL.charAt(0)) {
				signalAll();
			}
			else if (body.length > 1) {
				signalOwner(new String(body, StandardCharsets.UTF_8));
			}
			else {
				signalNext();
			}
		}

		private void signalAll() {
			for (Waiter waiter : this.queue) {
				if (waiter.isListening() && !waiter.signalled) {
					waiter.signal();
				}
			}
		}

		private void signalOwner(String owner) {
			for (Waiter waiter : this.queue) {
				if (waiter.owner.equals(owner) && waiter.isListening()) {
					waiter.signal();
					return;
				}
			}
		}

		void signalNext() {
			for (Waiter waiter : this.queue) {
				if (waiter.isListening() && !waiter.signalled) {
					waiter.signal();
					return;
				}
			}
		}

	}

	/**
	 * One thread or asynchronous acquisition waiting for one lock. {@code ATTEMPTING}: a semaphore's waiter runs
	 * an attempt of its own; a signal is kept for after it, no releaser may claim it. {@code WAITING}: it retries on a signal or
	 * after its sleep. {@code CLAIMED}: a releaser is handing the lock to it and will resolve the claim (threads
	 * only). {@code GONE}: it left.
	 */
	public static final class Waiter {

		static final int WAITING = 0;

		static final int ATTEMPTING = 3;

		static final int CLAIMED = 1;

		static final int GONE = 2;

		final Channel channel;

		public final String owner;

		/** The lease the waiter asked for, which a hand-off gives it. */
		public final long leaseMillis;

		/** The permits the waiter asked for, which a hand-off gives it: 1 for a lock. */
		public final int permits;

		/**
		 * Whether joining subscribed the channel: a release just before could not have woken anyone, so the
		 * waiter tries again once the subscription is made ({@link #awaitSubscription(long)}; an asynchronous
		 * waiter is woken then). Otherwise earlier waiters were already listening, or will try again once
		 * subscribed, and one of them moves on.
		 */
		public final boolean subscribed;

		/** Whether a releaser may hand the lock to this waiter: a blocked thread, which awaits the resolution. */
		public final boolean claimable;

		private final Runnable wake;

		final AtomicInteger state = new AtomicInteger(WAITING);

		volatile boolean signalled;

		private volatile boolean resolved;

		private volatile long handedToken;

		private Waiter(Channel channel, String owner, long leaseMillis, int permits, boolean subscribed,
				boolean claimable, Runnable wake) {
			this.channel = channel;
			this.owner = owner;
			this.leaseMillis = leaseMillis;
			this.permits = permits;
			this.subscribed = subscribed;
			this.claimable = claimable;
			this.wake = wake;
		}

		public void signal() {
			this.signalled = true;
			this.wake.run();
		}

		/**
		 * Takes the pending signal, if any: an asynchronous waiter calls it as it starts an attempt, so that a
		 * wake-up it used is not passed on when it leaves.
		 * @return whether a signal was pending
		 */
		public boolean consumeSignal() {
			boolean signalled = this.signalled;
			this.signalled = false;
			return signalled;
		}

		/**
		 * Sleeps until signalled, claimed, interrupted or the time is up.
		 * @return whether the thread was interrupted (the flag is cleared)
		 */
		public boolean park(long nanos) {
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

		/**
		 * Waits until the subscription this waiter's join requested is made, it is claimed, interrupted or the
		 * time is up; returns at once for a waiter whose join subscribed nothing.
		 * @return whether the thread was interrupted (the flag is cleared)
		 */
		public boolean awaitSubscription(long nanos) {
			long deadline = System.nanoTime() + nanos;
			while (this.subscribed && !this.channel.subscription.isDone() && this.state.get() == WAITING) {
				long left = deadline - System.nanoTime();
				if (left <= 0) {
					break;
				}
				LockSupport.parkNanos(this, left);
				if (Thread.interrupted()) {
					return true;
				}
			}
			return false;
		}

		public boolean isClaimed() {
			return this.state.get() == CLAIMED;
		}

		/** @return true if the waiter left; false if it was claimed and must take its resolution */
		public boolean withdraw() {
			return this.state.compareAndSet(WAITING, GONE) || this.state.compareAndSet(ATTEMPTING, GONE)
					|| this.state.get() == GONE;
		}

		/**
		 * Waits for the releaser that claimed this waiter; short, since the releaser only runs its script.
		 * @return the fencing token handed over, or 0 when the waiter must try again itself
		 */
		public long awaitResolution() {
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

		/** @return whether a release message may wake this waiter: it waits, or runs an attempt of its own */
		boolean isListening() {
			int current = this.state.get();
			return current == WAITING || current == ATTEMPTING;
		}

		/**
		 * Takes the waiter out of the releasers' reach while it runs an attempt of its own, so that no releaser
		 * hands it permits its attempt may take as well; a release message meanwhile is kept for after the
		 * attempt. {@link #endAttempt()} when the attempt took nothing.
		 * @return false when a releaser claimed the waiter first: take the claim's outcome
		 * ({@link #awaitResolution()})
		 */
		public boolean startAttempt() {
			return this.state.compareAndSet(WAITING, ATTEMPTING);
		}

		/** After an attempt of its own that took nothing: releasers may claim the waiter again. */
		public void endAttempt() {
			this.state.compareAndSet(ATTEMPTING, WAITING);
		}

		/**
		 * @return whether a waiter that joined before this one still waits for the lock: a release wakes that one
		 * first
		 */
		public boolean queuedBehindOthers() {
			for (Waiter other : this.channel.queue) {
				if (other == this) {
					return false;
				}
				if (other.isListening()) {
					return true;
				}
			}
			return false;
		}

		/** After a claim that handed nothing over: wait again. */
		public void rearm() {
			this.resolved = false;
			this.state.set(WAITING);
		}

		/** After a withdrawal that did not end the wait (an interrupt an uninterruptible wait ignores). */
		public void rejoin() {
			this.state.compareAndSet(GONE, WAITING);
		}

		/** The release script made this waiter's owner the holder. */
		public void handOver(long fencingToken) {
			this.handedToken = fencingToken;
			this.resolved = true;
			this.wake.run();
		}

		/**
		 * Nothing was handed over, or the outcome is unknown: the waiter tries again itself; should the hand-off
		 * have taken effect after all, its attempt adopts the lock as one hold.
		 */
		public void retry() {
			this.resolved = true;
			this.wake.run();
		}

	}

}
