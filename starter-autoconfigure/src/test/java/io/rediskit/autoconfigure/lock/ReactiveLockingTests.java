package io.rediskit.autoconfigure.lock;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.rediskit.lock.Lease;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How {@link ReactiveLocking} hands a lease to a subscription when the lease arrives on one thread while the
 * subscription is cancelled on another. No Redis here: the lease's own release is the core's, tested against a
 * real server; what is tested is the hand-over, which must release every lease it was given exactly once.
 * <p>
 * Reactor's {@code Mono.create} sink drops a value that arrives while a cancellation is half done (its state
 * already terminal, its disposable not yet cancelled) instead of discarding it; a lease dropped that way was never
 * released, and its watchdog renewed the key for good ({@code ReactiveDistributedLockTests}' cancellation race
 * then timed out with one release missing). The two threads start each round together, so that a share of the
 * rounds falls into that window.
 */
class ReactiveLockingTests {

	private static final int ROUNDS = 10_000;

	/** Bounds the test on a loaded machine, where both threads of a round wait for a core: fewer rounds then. */
	private static final long MAX_NANOS = TimeUnit.SECONDS.toNanos(3);

	private final ExecutorService completer = Executors.newSingleThreadExecutor();

	@AfterEach
	void shutdown() {
		this.completer.shutdownNow();
	}

	@Test
	void aLeaseArrivingWhileTheSubscriptionIsCancelledIsReleasedExactlyOnce() throws Exception {
		ReactiveAdapter adapter = ReactiveAdapterRegistry.getSharedInstance().getAdapter(Mono.class);
		assertThat(adapter).isNotNull();
		List<String> problems = new ArrayList<>();
		int rounds = 0;
		int handedOver = 0;
		int wrong = 0;
		long started = System.nanoTime();
		while (rounds < ROUNDS && System.nanoTime() - started < MAX_NANOS) {
			rounds++;
			CompletableFuture<Lease> acquiring = new CompletableFuture<>();
			CountingLease lease = new CountingLease(rounds);
			AtomicInteger calls = new AtomicInteger();
			// The method's publisher never ends: only the cancellation ends the subscription.
			Mono<?> locked = (Mono<?>) ReactiveLocking.lock(adapter, () -> acquiring, (failure) -> failure, () -> {
				calls.incrementAndGet();
				return Mono.never();
			});
			Disposable subscription = locked.subscribe();
			AtomicInteger ready = new AtomicInteger();
			Future<Boolean> completed = this.completer.submit(() -> {
				together(ready);
				return acquiring.complete(lease);
			});
			together(ready);
			subscription.dispose();
			// A lease the acquisition could not hand over (cancelled first) is the acquisition's to release.
			boolean given = completed.get(10, TimeUnit.SECONDS);
			int expected = given ? 1 : 0;
			if (given) {
				handedOver++;
			}
			if (lease.releases.get() != expected && wrong++ < 5) {
				problems.add(lease + " handed over " + given + ", method called " + calls.get() + " times, released "
						+ lease.releases.get() + " times");
			}
		}
		assertThat(rounds).as("rounds run in %d s", TimeUnit.NANOSECONDS.toSeconds(MAX_NANOS))
			.isGreaterThanOrEqualTo(100);
		assertThat(handedOver).as("leases handed over in %d rounds", rounds).isPositive();
		assertThat(wrong).as("leases released other than once (of %d handed over in %d rounds); the first: %s",
				handedOver, rounds, problems)
			.isZero();
	}

	/**
	 * Starts the caller's part of a round once the other thread is there too, both running; spins briefly, then
	 * yields, so that on a machine with more threads than cores the other one gets its turn.
	 */
	private static void together(AtomicInteger ready) {
		ready.incrementAndGet();
		for (int spins = 0; ready.get() < 2; spins++) {
			if (spins < 10_000) {
				Thread.onSpinWait();
			}
			else {
				Thread.yield();
			}
		}
	}

	/** A lease that counts its releases; releasing it again counts too, unlike a real lease. */
	private static final class CountingLease implements Lease {

		final AtomicInteger releases = new AtomicInteger();

		private final int round;

		CountingLease(int round) {
			this.round = round;
		}

		@Override
		public String lockName() {
			return "race";
		}

		@Override
		public long fencingToken() {
			return this.round;
		}

		@Override
		public boolean isActive() {
			return this.releases.get() == 0;
		}

		@Override
		public void close() {
			this.releases.incrementAndGet();
		}

		@Override
		public CompletionStage<@Nullable Void> releaseAsync() {
			this.releases.incrementAndGet();
			return CompletableFuture.completedFuture(null);
		}

		@Override
		public String toString() {
			return "lease of round " + this.round;
		}

	}

}
