package io.rediskit.lock;

import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

import io.rediskit.support.KeyNaming;
import io.rediskit.support.ReleaseSignals;
import io.rediskit.support.TopologyScripts;
import io.rediskit.testsupport.TopologyContract;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Interrupts that land while a waiting thread subscribes its lock's release channel, on every topology. A thread
 * once interrupted inside Spring Data Redis's listener container could stay there for good (an uninterruptible
 * join), holding the lock of {@link ReleaseSignals} that {@link LockRegistry#close()} then waited for; a waiter now
 * never waits inside a subscription, and this pins it: the race is run many times, the interrupt landing at varied
 * moments around the subscription, on a registry whose pub/sub connection is not open yet (the first
 * subscription) and on one already listening.
 * After the interrupted waits, a release must still wake a waiter of that registry: its poll interval is longer
 * than the wait, so only the release message (or the attempt right after subscribing) can give it the lock.
 */
class ReleaseSignalsInterruptTests extends TopologyContract {

	static final int ROUNDS = 100;

	/** Far longer than an interrupted wait takes, far shorter than the waiters' wait time. */
	static final Duration BOUND = Duration.ofSeconds(10);

	@Test
	void anInterruptAroundTheSubscriptionEndsTheWaitAndCloseReturns() throws Exception {
		try (LockRegistry holder = registry()) {
			for (int round = 0; round < ROUNDS; round++) {
				LockRegistry waiting = registry();
				// Two waits per registry: the container's first subscription, then one while it listens.
				for (int wait = 0; wait < 2; wait++) {
					interruptedWait(holder, waiting, round * 2 + wait);
				}
				aReleaseWakesTheNextWaiter(holder, waiting);
				closeWithin(waiting, "round " + round);
				assertThat(waiting.heldLocks()).isEmpty();
			}
		}
	}

	/**
	 * A stop that closes the container's connection while a subscription waits for its confirmation can leave
	 * that subscription waiting for good; after the restart, a new waiter's subscription must not queue behind it.
	 */
	@Test
	void aStopWhileSubscribingHoldsUpNoSubscriptionAfterTheRestart() throws Exception {
		try (LockRegistry holder = registry(); LockRegistry waiting = registry()) {
			for (int round = 0; round < ROUNDS / 2; round++) {
				String name = this.redis.unique("restarted");
				Lease held = holder.getLock(name).acquire(Duration.ZERO);
				RedisLock lock = waiting.getLock(name);
				Thread waiter = new Thread(() -> {
					try {
						lock.tryLock(Duration.ofSeconds(60));
					}
					catch (InterruptedException ex) {
						// The end this test asks for.
					}
				}, "interrupted-waiter-restart-" + round);
				waiter.setDaemon(true);
				waiter.start();
				LockTesting.awaitCondition("the waiter to join", BOUND,
						() -> waiting.signals().waiting(lock.keys().released) == 1);
				long until = System.nanoTime() + ThreadLocalRandom.current().nextLong(TimeUnit.MILLISECONDS.toNanos(2));
				while (System.nanoTime() < until) {
					Thread.onSpinWait();
				}
				// Stopped while its subscription may be under way, in the container's wait for the confirmation.
				waiting.stop();
				waiting.start();
				waiter.interrupt();
				waiter.join(BOUND.toMillis());
				assertThat(waiter.isAlive()).as("waiter %d still running after %s:%n%s", round, BOUND, stack(waiter))
					.isFalse();
				held.close();
				aReleaseWakesTheNextWaiter(holder, waiting);
			}
			closeWithin(waiting, "the restarted registry");
		}
	}

	private void interruptedWait(LockRegistry holder, LockRegistry waiting, int attempt) throws Exception {
		String name = this.redis.unique("interrupted");
		Lease held = holder.getLock(name).acquire(Duration.ZERO);
		AtomicReference<Object> outcome = new AtomicReference<>();
		Thread waiter = new Thread(() -> {
			try {
				outcome.set(waiting.getLock(name).tryLock(Duration.ofSeconds(60)));
			}
			catch (InterruptedException | RuntimeException ex) {
				outcome.set(ex);
			}
		}, "interrupted-waiter-" + attempt);
		waiter.setDaemon(true);
		waiter.start();
		interruptAtAVariedMoment(waiter, attempt);
		waiter.join(BOUND.toMillis());
		assertThat(waiter.isAlive()).as("waiter %d still running after %s:%n%s", attempt, BOUND, stack(waiter))
			.isFalse();
		assertThat(outcome.get()).as("waiter %d", attempt).isInstanceOf(InterruptedException.class);
		assertThat(waiting.signals().waiting(waiting.getLock(name).keys().released))
			.as("waiters left registered").isZero();
		held.close();
		assertThat(this.redis.exists(LockEngine.key(name))).as("key of waiter %d", attempt).isFalse();
	}

	private void aReleaseWakesTheNextWaiter(LockRegistry holder, LockRegistry waiting) throws Exception {
		String name = this.redis.unique("woken");
		Lease held = holder.getLock(name).acquire(Duration.ZERO);
		RedisLock lock = waiting.getLock(name);
		CompletableFuture<Boolean> acquired = new CompletableFuture<>();
		Thread waiter = new Thread(() -> {
			try {
				boolean locked = lock.tryLock(BOUND);
				if (locked) {
					lock.unlock();
				}
				acquired.complete(locked);
			}
			catch (Throwable ex) {
				acquired.completeExceptionally(ex);
			}
		}, "woken-waiter");
		waiter.setDaemon(true);
		waiter.start();
		LockTesting.awaitCondition("the waiter to join", BOUND,
				() -> waiting.signals().waiting(lock.keys().released) == 1);
		held.close();
		assertThat(acquired.get(BOUND.toSeconds() * 2, TimeUnit.SECONDS)).as("woken by the release").isTrue();
		assertThat(this.redis.exists(LockEngine.key(name))).isFalse();
	}

	/**
	 * One of three moments, in turn: as soon as the waiter is inside the subscription (its stack shows the
	 * release signals or the listener container), after a random delay of up to 3 ms from its start, or once it
	 * waits (parked or in a timed wait, wherever that is).
	 */
	private static void interruptAtAVariedMoment(Thread waiter, int attempt) {
		long deadline = System.nanoTime() + BOUND.toNanos();
		switch (attempt % 3) {
			case 0 -> {
				while (waiter.isAlive() && !inSubscription(waiter) && System.nanoTime() < deadline) {
					Thread.onSpinWait();
				}
			}
			case 1 -> {
				long until = System.nanoTime() + ThreadLocalRandom.current().nextLong(TimeUnit.MILLISECONDS.toNanos(3));
				while (System.nanoTime() < until) {
					Thread.onSpinWait();
				}
			}
			default -> {
				while (waiter.isAlive() && waiter.getState() != Thread.State.WAITING
						&& waiter.getState() != Thread.State.TIMED_WAITING && System.nanoTime() < deadline) {
					Thread.onSpinWait();
				}
			}
		}
		waiter.interrupt();
	}

	private static boolean inSubscription(Thread thread) {
		return Arrays.stream(thread.getStackTrace())
			.anyMatch((frame) -> frame.getClassName().startsWith(ReleaseSignals.class.getName())
					|| frame.getClassName().startsWith("org.springframework.data.redis.listener."));
	}

	private static void closeWithin(LockRegistry registry, String what) throws Exception {
		Thread closing = new Thread(registry::close, "closing-registry");
		closing.setDaemon(true);
		closing.start();
		closing.join(BOUND.toMillis());
		assertThat(closing.isAlive()).as("close() of %s still running after %s:%n%s%nother threads:%n%s", what,
				BOUND, stack(closing), stuckWaiters()).isFalse();
	}

	private static String stack(Thread thread) {
		return Arrays.stream(thread.getStackTrace()).map((frame) -> "\tat " + frame).collect(Collectors.joining("\n"));
	}

	private static String stuckWaiters() {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter((thread) -> thread.getName().startsWith("interrupted-waiter-"))
			.map((thread) -> thread.getName() + "\n" + stack(thread))
			.collect(Collectors.joining("\n"));
	}

	private LockRegistry registry() {
		return new LockRegistry(TopologyScripts.of(this.redis), this.redis.connections(), KeyNaming.defaults(),
				LockSpec.defaults().withMaxPollInterval(BOUND.multipliedBy(6)), List.of(), Clock.systemUTC());
	}

}
