package io.rediskit.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.rediskit.support.HostileNames;
import io.rediskit.testsupport.FailuresNameTheRun;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ArgumentsSource;

import org.springframework.data.redis.connection.RedisConnection;

import static io.rediskit.lock.LockEngine.key;
import static io.rediskit.lock.LockTesting.awaitCondition;
import static io.rediskit.lock.LockTesting.fencedWrite;
import static io.rediskit.lock.LockTesting.unsafeIncrement;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What every redis-kit lock promises, written once against {@link RedisLock} and {@link Lease} and run
 * for every engine on every deployment ({@link LockEngine.All}: the single-node lock on standalone, Cluster and
 * Sentinel, Redlock on independent masters): acquire and release, reentrancy, waits that time out, strictly
 * increasing fencing tokens, a lease that ends and the loss its owner is told of, watchdog renewal, asynchronous
 * acquisition, cancelled and interrupted waits that leave no key, hostile names, and mutual exclusion under
 * concurrency checked by a {@link HoldLog} and a non-atomic counter in Redis. What one engine alone offers (the
 * single-node lock's hold counts and local hand-off, Redlock's node faults) is tested in that engine's classes.
 */
@ParameterizedClass(name = "[{index}] {0}")
@ArgumentsSource(LockEngine.All.class)
@ExtendWith(FailuresNameTheRun.class)
class LockContractTests {

	@Parameter
	LockEngine engine;

	LockTesting.RecordingListener listener;

	LockEngine.Locks locks;

	ExecutorService executor;

	@BeforeEach
	void open() {
		this.listener = new LockTesting.RecordingListener();
		this.locks = this.engine.open(this.listener, LockEngine.LEASE);
		this.executor = Executors.newCachedThreadPool();
	}

	@AfterEach
	void close() {
		this.executor.shutdownNow();
		this.locks.close();
	}

	/** Another application instance: a registry of its own on the same servers. */
	LockEngine.Locks other() {
		return this.engine.open(new LockTesting.RecordingListener(), LockEngine.LEASE);
	}

	@Test
	void acquiresAndReleases() throws Exception {
		String name = this.engine.unique("orders");
		try (LockEngine.Locks other = other()) {
			Lease lease = this.locks.getLock(name).acquire(Duration.ZERO);
			assertThat(lease.isActive()).isTrue();
			assertThat(lease.lockName()).isEqualTo(name);
			assertThat(this.engine.exists(key(name))).as("the key, asked of the servers").isTrue();
			assertThat(other.getLock(name).tryAcquire(Duration.ZERO, null)).as("another instance").isEmpty();
			lease.close();
			assertThat(lease.isActive()).isFalse();
			// Gone, or (Redlock) going: the other instance's attempt, refused by a majority, can reach a slower node
			// after the release and take it there until its undo, which runs in the background.
			this.engine.assertGone(key(name));
			RedisLock lock = this.locks.getLock(name);
			assertThat(this.executor.submit(() -> {
				boolean acquired = lock.tryLock();
				lock.unlock();
				return acquired;
			}).get(10, TimeUnit.SECONDS)).as("a thread hold").isTrue();
			this.engine.assertGone(key(name));
		}
	}

	@Test
	void onlyTheHoldingThreadUnlocksAndTheKeyStays() throws Exception {
		String name = this.engine.unique("owned");
		RedisLock lock = this.locks.getLock(name);
		lock.lock();
		try {
			Future<?> stranger = this.executor.submit(() -> {
				assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(lock::unlock);
				assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(lock::fencingToken);
				return null;
			});
			stranger.get(10, TimeUnit.SECONDS);
			assertThat(this.engine.exists(key(name))).as("the owner's key").isTrue();
		}
		finally {
			lock.unlock();
		}
		assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(lock::unlock);
		assertThat(this.engine.exists(key(name))).isFalse();
	}

	@Test
	void isReentrantPerThreadWithOneToken() throws Exception {
		String name = this.engine.unique("reentrant");
		RedisLock lock = this.locks.getLock(name);
		try (LockEngine.Locks other = other()) {
			lock.lock();
			long token = lock.fencingToken();
			assertThat(lock.tryLock(Duration.ZERO)).as("re-entry").isTrue();
			assertThat(lock.fencingToken()).as("re-entry keeps the token").isEqualTo(token);
			lock.unlock();
			assertThat(other.getLock(name).tryAcquire(Duration.ZERO, null)).as("still held after one unlock").isEmpty();
			assertThat(this.engine.exists(key(name))).isTrue();
			lock.unlock();
			assertThat(this.engine.exists(key(name))).isFalse();
			try (Lease next = other.getLock(name).acquire(Duration.ZERO)) {
				assertThat(next.fencingToken()).isGreaterThan(token);
			}
		}
	}

	@Test
	void aWaitTimesOutWhileAnotherHolds() throws Exception {
		String name = this.engine.unique("contended");
		try (LockEngine.Locks other = other(); Lease held = other.getLock(name).acquire(Duration.ZERO)) {
			Future<Long> waited = this.executor.submit(() -> {
				long started = System.nanoTime();
				assertThat(this.locks.getLock(name).tryLock(Duration.ofMillis(300))).isFalse();
				return System.nanoTime() - started;
			});
			assertThat(Duration.ofNanos(waited.get(10, TimeUnit.SECONDS))).isGreaterThanOrEqualTo(Duration.ofMillis(300));
			assertThatExceptionOfType(LockNotAcquiredException.class)
				.isThrownBy(() -> this.locks.getLock(name).acquire(Duration.ofMillis(50)));
			assertThat(this.locks.getLock(name).tryAcquire(Duration.ofMillis(50), null)).isEmpty();
			assertThatExceptionOfType(ExecutionException.class)
				.isThrownBy(() -> this.locks.getLock(name)
					.acquireAsync(Duration.ofMillis(50))
					.toCompletableFuture()
					.get(10, TimeUnit.SECONDS))
				.withCauseInstanceOf(LockNotAcquiredException.class);
			assertThat(held.isActive()).isTrue();
		}
		// An asynchronous wait (Redlock's) is reported just after its stage failed: wait for it, then count exactly.
		awaitCondition("every wait reported", Duration.ofSeconds(10),
				() -> this.listener.count("acquire " + name) >= 4);
		assertThat(this.listener.count("acquire " + name + " TIMEOUT")).as("every wait reported").isEqualTo(4);
		assertThat(this.locks.heldLocks()).isEmpty();
	}

	@Test
	void fencingTokensStrictlyIncreaseAcrossHoldersAndRegistries() {
		String name = this.engine.unique("fenced");
		String resource = this.engine.unique("resource");
		long last = 0;
		try (LockEngine.Locks other = other()) {
			for (int i = 0; i < 10; i++) {
				LockEngine.Locks holder = (i % 2 == 0) ? this.locks : other;
				try (Lease lease = holder.getLock(name).acquire(Duration.ofSeconds(5))) {
					assertThat(lease.fencingToken()).isGreaterThan(last);
					assertThat(fencedWrite(this.engine.resource(), resource, lease.fencingToken(), "v" + i)).isTrue();
					last = lease.fencingToken();
				}
			}
		}
		assertThat(fencedWrite(this.engine.resource(), resource, last - 1, "stale")).as("a stale token").isFalse();
	}

	@Test
	void anExplicitLeaseEndsAndItsOwnerLearnsItWasLost() throws Exception {
		String name = this.engine.unique("expiring");
		String resource = this.engine.unique("resource");
		Duration lease = this.engine.shortLease();
		Lease first = this.locks.getLock(name).acquire(Duration.ZERO, lease);
		long firstToken = first.fencingToken();
		assertThat(fencedWrite(this.engine.resource(), resource, firstToken, "first")).isTrue();
		try (LockEngine.Locks other = other()) {
			// Nobody renews an explicit lease: the other instance gets the lock when it ends, not before.
			long started = System.nanoTime();
			Lease second = other.getLock(name).acquire(lease.multipliedBy(20));
			assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(lease.multipliedBy(20));
			assertThat(second.fencingToken()).isGreaterThan(firstToken);
			assertThat(fencedWrite(this.engine.resource(), resource, second.fencingToken(), "second")).isTrue();
			assertThat(fencedWrite(this.engine.resource(), resource, firstToken, "stale")).as("the old owner's write")
				.isFalse();

			assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(first::close)
				.satisfies((ex) -> assertThat(ex.getMessage()).contains(name));
			assertThat(this.listener.count("lost " + name + " " + firstToken)).as("the loss, reported once").isOne();
			assertThat(first.isActive()).isFalse();
			assertThat(this.locks.heldLocks()).isEmpty();

			assertThat(this.engine.exists(key(name))).as("the new owner's key, left alone").isTrue();
			assertThat(this.locks.getLock(name).tryAcquire(Duration.ZERO, null)).isEmpty();
			second.close();
		}
		assertThat(this.engine.exists(key(name))).isFalse();
	}

	@Test
	void theWatchdogRenewsALeaseWhileItIsHeld() throws Exception {
		String name = this.engine.unique("renewed");
		Duration watchdog = this.engine.shortLease();
		try (LockEngine.Locks renewing = this.engine.open(this.listener, watchdog)) {
			long started = System.nanoTime();
			Lease lease = renewing.getLock(name).acquire(Duration.ZERO);
			// Renewals come every third of the lease: four of them mean the lock outlived its first lease.
			awaitCondition("four renewals", watchdog.multipliedBy(20),
					() -> this.listener.count("renewal " + name + " RENEWED") >= 4);
			assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThan(watchdog);
			assertThat(lease.isActive()).isTrue();
			assertThat(this.engine.exists(key(name))).isTrue();
			assertThat(this.locks.getLock(name).tryAcquire(Duration.ZERO, null)).isEmpty();
			lease.close();
			assertThat(this.listener.count("lost " + name)).isZero();
		}
		assertThat(this.engine.exists(key(name))).isFalse();
	}

	@Test
	void acquiresAsynchronouslyWhenTheHolderReleases() throws Exception {
		String name = this.engine.unique("async");
		Lease held = this.locks.getLock(name)
			.acquireAsync(Duration.ZERO)
			.toCompletableFuture()
			.get(10, TimeUnit.SECONDS);
		try (LockEngine.Locks other = other()) {
			CompletableFuture<Lease> waiter = other.getLock(name)
				.acquireAsync(Duration.ofSeconds(20), null)
				.toCompletableFuture();
			assertThat(waiter).isNotDone();
			held.releaseAsync().toCompletableFuture().get(10, TimeUnit.SECONDS);
			Lease lease = waiter.get(20, TimeUnit.SECONDS);
			assertThat(lease.fencingToken()).isGreaterThan(held.fencingToken());
			lease.releaseAsync().toCompletableFuture().get(10, TimeUnit.SECONDS);
			assertThat(lease.isActive()).isFalse();
		}
		assertThat(this.engine.exists(key(name))).isFalse();
	}

	@Test
	void aCancelledAsynchronousWaitRacingTheReleaseLeavesNoKey() throws Exception {
		String name = this.engine.unique("cancelled");
		try (LockEngine.Locks other = other()) {
			for (int round = 0; round < 20; round++) {
				Lease held = this.locks.getLock(name).acquire(Duration.ofSeconds(10));
				CompletableFuture<Lease> waiter = this.locks.getLock(name)
					.acquireAsync(Duration.ofSeconds(30))
					.toCompletableFuture();
				CompletionStage<?> released = held.releaseAsync();
				// The cancel races the release: the waiter may have the lock already, or get it a moment later.
				if (!waiter.cancel(false) && !waiter.isCompletedExceptionally()) {
					waiter.join().close();
				}
				released.toCompletableFuture().get(10, TimeUnit.SECONDS);
				// A key the cancelled wait kept (and its watchdog renewed) would make this time out.
				try (Lease checker = other.getLock(name).acquire(Duration.ofSeconds(15))) {
					assertThat(checker.fencingToken()).isGreaterThan(held.fencingToken());
				}
			}
		}
		awaitCondition("no hold left", Duration.ofSeconds(10), () -> this.locks.heldLocks().isEmpty());
		this.engine.assertGone(key(name));
	}

	@Test
	void aCancelledAsynchronousWaitIsReportedAsInterruptedAndNeverAsAcquired() throws Exception {
		String name = this.engine.unique("cancel-reported");
		LockTesting.RecordingListener waiting = new LockTesting.RecordingListener();
		int rounds = 20;
		int acquired = 0;
		try (LockEngine.Locks waiter = this.engine.open(waiting, LockEngine.LEASE)) {
			for (int round = 0; round < rounds; round++) {
				Lease held = this.locks.getLock(name).acquire(Duration.ofSeconds(10));
				CompletableFuture<Lease> wait = waiter.getLock(name).acquireAsync(Duration.ofSeconds(30)).toCompletableFuture();
				// Even rounds cancel a wait the holder keeps; odd ones race the cancel with the release, so that
				// an attempt may be granted while or after the caller cancels.
				CompletionStage<?> released = (round % 2 == 1) ? held.releaseAsync() : null;
				if (!wait.cancel(false)) {
					wait.join().close();
					acquired++;
				}
				int outcomes = round + 1;
				awaitCondition("the outcome of wait " + outcomes, Duration.ofSeconds(10),
						() -> waiting.count("acquire " + name) >= outcomes);
				// At least, then exactly: a wait reported twice fails here naming the events, not as a missing report.
				assertThat(waiting.count("acquire " + name)).as("outcomes after wait %d: %s", outcomes, waiting.events)
					.isEqualTo(outcomes);
				if (released != null) {
					released.toCompletableFuture().get(10, TimeUnit.SECONDS);
				}
				else {
					held.close();
				}
			}
			awaitCondition("no hold left", Duration.ofSeconds(10), () -> waiter.heldLocks().isEmpty());
		}
		assertThat(waiting.count("acquire " + name + " ACQUIRED")).as("only waits that were granted before the cancel")
			.isEqualTo(acquired);
		assertThat(waiting.count("acquire " + name + " INTERRUPTED")).isEqualTo(rounds - acquired);
		assertThat(waiting.count("acquire " + name)).as("one outcome per wait").isEqualTo(rounds);
		assertThat(waiting.count("release " + name)).as("releases of granted waits only").isEqualTo(acquired);
		this.engine.assertGone(key(name));
	}

	/**
	 * The caller cancels as a grant is handed over: after the wait checked the reply for a cancel, before the stage
	 * takes the lease (the hold's observation starts in between, on the thread that applies the grant). Nothing
	 * refuses the cancel, so the wait is interrupted: never reported acquired, no release reported, no hold left,
	 * the lock free for the next owner.
	 */
	@Test
	void aCancelAsTheGrantIsHandedOverIsReportedAsInterruptedAndGivesTheLockBack() throws Exception {
		String name = this.engine.unique("cancel-handover");
		LockTesting.RecordingListener waiting = new LockTesting.RecordingListener();
		try (LockEngine.Locks waiter = this.engine.open(waiting, LockEngine.LEASE)) {
			Lease held = this.locks.getLock(name).acquire(Duration.ofSeconds(10));
			CompletableFuture<Lease> wait = waiter.getLock(name).acquireAsync(Duration.ofSeconds(30))
				.toCompletableFuture();
			AtomicReference<Boolean> cancelled = new AtomicReference<>();
			waiting.onNextHoldStart(() -> cancelled.set(wait.cancel(false)));
			held.close();
			awaitCondition("the outcome of the wait", Duration.ofSeconds(20),
					() -> waiting.count("acquire " + name) >= 1);
			assertThat(cancelled.get()).as("cancelled as the grant was handed over").isTrue();
			assertThat(wait).isCancelled();
			awaitCondition("no hold left", Duration.ofSeconds(10), () -> waiter.heldLocks().isEmpty());
			try (Lease next = this.locks.getLock(name).acquire(Duration.ofSeconds(15))) {
				assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
			}
		}
		assertThat(waiting.events).as("one outcome, and no release").containsExactly("acquire " + name + " INTERRUPTED");
		this.engine.assertGone(key(name));
	}

	/**
	 * The caller cancels as the wait runs out, the moment its outcome is reported. The caller's stage decides, as
	 * for a grant: it took the timeout before the outcome was reported, so the cancel finds it ended, and what the
	 * listeners heard is what the caller saw. A timeout reported before the stage ended let the cancel through:
	 * the caller saw a cancellation, the listeners a timeout.
	 */
	@Test
	void aCancelAsTheWaitRunsOutFindsTheStageEndedWithTheOutcomeReported() throws Exception {
		String name = this.engine.unique("cancel-timeout");
		LockTesting.RecordingListener waiting = new LockTesting.RecordingListener();
		AtomicReference<Boolean> cancelled = new AtomicReference<>();
		try (LockEngine.Locks waiter = this.engine.open(waiting, LockEngine.LEASE);
				Lease held = this.locks.getLock(name).acquire(Duration.ofSeconds(10))) {
			CompletableFuture<CompletableFuture<Lease>> stage = new CompletableFuture<>();
			// Set before the wait starts; the wait's end, on another thread, finds the stage once it is returned.
			waiting.onNextEnd(() -> cancelled.set(stage.join().cancel(false)));
			CompletableFuture<Lease> wait = waiter.getLock(name).acquireAsync(Duration.ofMillis(200))
				.toCompletableFuture();
			stage.complete(wait);
			awaitCondition("the outcome of the wait", Duration.ofSeconds(20),
					() -> waiting.count("acquire " + name) >= 1);
			assertThat(cancelled.get()).as("a cancel once the outcome is reported").isFalse();
			assertThat(wait).as("the stage the caller saw").isCompletedExceptionally().isNotCancelled();
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(wait::get)
				.withCauseInstanceOf(LockNotAcquiredException.class);
		}
		assertThat(waiting.events).as("the outcome the caller saw").containsExactly("acquire " + name + " TIMEOUT");
	}

	/**
	 * As above for an error: the registry stops while the caller waits, and the caller cancels as the wait's outcome
	 * is reported. The stage took the stop's {@link IllegalStateException} first, so the error the listeners heard
	 * is the one the caller saw.
	 */
	@Test
	void aCancelAsTheRegistryStopsFindsTheStageEndedWithTheErrorReported() throws Exception {
		String name = this.engine.unique("cancel-stop");
		LockTesting.RecordingListener waiting = new LockTesting.RecordingListener();
		AtomicReference<Boolean> cancelled = new AtomicReference<>();
		CompletableFuture<Lease> wait;
		try (Lease held = this.locks.getLock(name).acquire(Duration.ofSeconds(10))) {
			LockEngine.Locks waiter = this.engine.open(waiting, LockEngine.LEASE);
			try {
				wait = waiter.getLock(name).acquireAsync(Duration.ofSeconds(30)).toCompletableFuture();
				CompletableFuture<Lease> stage = wait;
				waiting.onNextEnd(() -> cancelled.set(stage.cancel(false)));
			}
			finally {
				waiter.close();
			}
			awaitCondition("the outcome of the wait", Duration.ofSeconds(20),
					() -> waiting.count("acquire " + name) >= 1);
		}
		assertThat(cancelled.get()).as("a cancel once the outcome is reported").isFalse();
		assertThat(wait).as("the stage the caller saw").isCompletedExceptionally().isNotCancelled();
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(wait::get)
			.withCauseInstanceOf(IllegalStateException.class);
		assertThat(waiting.events).as("the outcome the caller saw").containsExactly("acquire " + name + " ERROR");
	}

	/**
	 * A caller that ends its stage itself (its own deadline through {@code orTimeout}, {@code complete},
	 * {@code completeExceptionally}) ends the wait at once, as a cancel does: each outcome is reported while the
	 * holder still holds the lock, minutes before the wait's own time would end it, and no hold is left. A stage the
	 * caller ended with a {@link TimeoutException} is reported as a timeout (the caller's wait ran out), any other end
	 * as interrupted. Nothing the waits could still take stays: the key is gone once the holder releases it.
	 */
	@Test
	void aStageTheCallerEndsItselfEndsTheWaitAtOnce() throws Exception {
		String name = this.engine.unique("caller-ends");
		LockTesting.RecordingListener waiting = new LockTesting.RecordingListener();
		try (LockEngine.Locks waiter = this.engine.open(waiting, LockEngine.LEASE)) {
			try (Lease held = this.locks.getLock(name).acquire(Duration.ofSeconds(10))) {
				CompletableFuture<Lease> timedOut = waiter.getLock(name).acquireAsync(Duration.ofMinutes(5))
					.toCompletableFuture()
					.orTimeout(50, TimeUnit.MILLISECONDS);
				awaitCondition("the outcome of the wait the caller timed out", Duration.ofSeconds(20),
						() -> waiting.count("acquire " + name) >= 1);
				assertThatExceptionOfType(ExecutionException.class).isThrownBy(timedOut::get)
					.withCauseInstanceOf(TimeoutException.class);
				CompletableFuture<Lease> completed = waiter.getLock(name).acquireAsync(Duration.ofMinutes(5))
					.toCompletableFuture();
				assertThat(completed.complete(null)).isTrue();
				awaitCondition("the outcome of the wait the caller completed", Duration.ofSeconds(20),
						() -> waiting.count("acquire " + name) >= 2);
				CompletableFuture<Lease> failed = waiter.getLock(name).acquireAsync(Duration.ofMinutes(5))
					.toCompletableFuture();
				assertThat(failed.completeExceptionally(new IllegalStateException("given up"))).isTrue();
				awaitCondition("the outcome of the wait the caller failed", Duration.ofSeconds(20),
						() -> waiting.count("acquire " + name) >= 3);
				assertThat(held.isActive()).isTrue();
			}
			awaitCondition("no hold left", Duration.ofSeconds(10), () -> waiter.heldLocks().isEmpty());
		}
		assertThat(waiting.events).as("each end as the caller saw it, and no release")
			.containsExactly("acquire " + name + " TIMEOUT", "acquire " + name + " INTERRUPTED",
					"acquire " + name + " INTERRUPTED");
		this.engine.assertGone(key(name));
	}

	/**
	 * The caller's own deadline ends its stage as a grant is handed over (after the wait checked the reply, before
	 * the stage takes the lease): the stage took the caller's {@link TimeoutException}, so the wait is reported as
	 * a timeout, never acquired, with no release reported and no hold left, and the lock is given back.
	 */
	@Test
	void aCallersTimeoutAsTheGrantIsHandedOverIsReportedAsATimeoutAndGivesTheLockBack() throws Exception {
		String name = this.engine.unique("timeout-handover");
		LockTesting.RecordingListener waiting = new LockTesting.RecordingListener();
		try (LockEngine.Locks waiter = this.engine.open(waiting, LockEngine.LEASE)) {
			Lease held = this.locks.getLock(name).acquire(Duration.ofSeconds(10));
			CompletableFuture<Lease> wait = waiter.getLock(name).acquireAsync(Duration.ofSeconds(30))
				.toCompletableFuture();
			AtomicReference<Boolean> ended = new AtomicReference<>();
			waiting.onNextHoldStart(() -> ended.set(wait.completeExceptionally(new TimeoutException("deadline"))));
			held.close();
			awaitCondition("the outcome of the wait", Duration.ofSeconds(20),
					() -> waiting.count("acquire " + name) >= 1);
			assertThat(ended.get()).as("ended by the caller as the grant was handed over").isTrue();
			awaitCondition("no hold left", Duration.ofSeconds(10), () -> waiter.heldLocks().isEmpty());
			try (Lease next = this.locks.getLock(name).acquire(Duration.ofSeconds(15))) {
				assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
			}
		}
		assertThat(waiting.events).as("one outcome, and no release").containsExactly("acquire " + name + " TIMEOUT");
		this.engine.assertGone(key(name));
	}

	@Test
	void anInterruptedWaitLeavesNoKey() throws Exception {
		String name = this.engine.unique("interrupted");
		Lease held = this.locks.getLock(name).acquire(Duration.ZERO);
		AtomicReference<Object> outcome = new AtomicReference<>();
		Thread waiter = new Thread(() -> {
			try {
				outcome.set(this.locks.getLock(name).tryLock(Duration.ofSeconds(30)));
			}
			catch (InterruptedException ex) {
				outcome.set(ex);
			}
		});
		waiter.start();
		// Interrupted while waiting or before it started to, the attempt must end the same way.
		awaitCondition("the waiter to wait", Duration.ofSeconds(10),
				() -> waiter.getState() == Thread.State.WAITING || waiter.getState() == Thread.State.TIMED_WAITING);
		waiter.interrupt();
		waiter.join(TimeUnit.SECONDS.toMillis(10));
		assertThat(waiter.isAlive()).isFalse();
		assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
		held.close();
		try (LockEngine.Locks other = other();
				Lease next = other.getLock(name).acquire(Duration.ofSeconds(15))) {
			assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
		}
		assertThat(this.locks.heldLocks()).isEmpty();
		this.engine.assertGone(key(name));
	}

	@Test
	void tenThousandHostileKeysLockAndSpreadOverTheServers() throws Exception {
		String prefix = this.engine.unique("hostile");
		List<String> names = HostileNames.generate(prefix, 10_000, 8);
		int threads = 8;
		List<Future<?>> tasks = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			int first = t;
			tasks.add(this.executor.submit(() -> {
				for (int i = first; i < names.size(); i += threads) {
					// Any CROSSSLOT or MOVED reaching the caller fails the test here.
					// Hostile data is a key: a name given in code is at most 128 characters without control characters.
					String key = names.get(i).substring(prefix.length());
					try (Lease lease = this.locks.getLock(prefix, key).acquire(Duration.ZERO)) {
						assertThat(lease.fencingToken()).isPositive();
					}
				}
				return null;
			}));
		}
		for (Future<?> task : tasks) {
			task.get(5, TimeUnit.MINUTES);
		}
		// Each name keeps its :fence key after release.
		this.engine.assertSpread("rk:lock:{" + prefix + "*}:fence", names.size());
		assertThat(this.locks.heldLocks()).isEmpty();
	}

	@Test
	void manyThreadsOfTwoInstancesNeverOverlap() throws Exception {
		int threads = 16;
		int iterations = 25;
		String name = this.engine.unique("exclusive");
		String counter = this.engine.unique("counter");
		String resource = this.engine.unique("resource");
		HoldLog log = new HoldLog();
		AtomicLong rejected = new AtomicLong();
		try (LockEngine.Locks second = other()) {
			List<Future<?>> tasks = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				RedisLock lock = ((t % 2 == 0) ? this.locks : second).getLock(name);
				// Half hold the lock with the thread-owned Lock methods, half with leases.
				boolean threadOwned = (t % 4) < 2;
				tasks.add(this.executor.submit(() -> {
					try (RedisConnection connection = this.engine.resource().getConnection()) {
						for (int i = 0; i < iterations; i++) {
							Lease lease = threadOwned ? null : lock.acquire(Duration.ofMinutes(1));
							if (threadOwned) {
								lock.lock();
							}
							try {
								long token = threadOwned ? lock.fencingToken() : lease.fencingToken();
								long entered = HoldLog.now();
								unsafeIncrement(connection, counter);
								if (!fencedWrite(this.engine.resource(), resource, token, "w")) {
									rejected.incrementAndGet();
								}
								log.record(entered, HoldLog.now(), token);
							}
							finally {
								if (threadOwned) {
									lock.unlock();
								}
								else {
									lease.close();
								}
							}
						}
					}
					return null;
				}));
			}
			for (Future<?> task : tasks) {
				task.get(5, TimeUnit.MINUTES);
			}
		}
		assertThat(log.size()).isEqualTo(threads * iterations);
		assertThat(log.violations()).as("overlapping holds").isEmpty();
		assertThat(rejected.get()).as("fenced writes rejected").isZero();
		assertThat(this.engine.resourceServer(counter).command("GET", counter)).as("the non-atomic counter")
			.isEqualTo(Long.toString((long) threads * iterations));
		this.engine.assertGone(key(name));
	}

}
