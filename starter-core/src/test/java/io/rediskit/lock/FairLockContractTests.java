package io.rediskit.lock;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.rediskit.support.KeyNaming;
import io.rediskit.support.TopologyScripts;
import io.rediskit.testsupport.TopologyContract;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The fair lock's contract on every topology: grants in arrival order across instances (arrivals and grants
 * recorded by the test, not by the lock), mutual exclusion, re-entry, leases, fencing, asynchronous waits that
 * leave the line when cancelled, and no key left behind.
 */
class FairLockContractTests extends TopologyContract {

	static final WaiterLineSpec SPEC = new WaiterLineSpec(Duration.ofMillis(900), null, Duration.ofSeconds(5),
			Duration.ofMillis(200), Duration.ofSeconds(1));

	LockTesting.RecordingListener listener;

	FairLockRegistry registry;

	ExecutorService executor;

	@BeforeEach
	void open() {
		this.listener = new LockTesting.RecordingListener();
		this.registry = registry(this.listener);
		this.executor = Executors.newCachedThreadPool();
	}

	@AfterEach
	void close() {
		this.executor.shutdownNow();
		this.registry.close();
	}

	FairLockRegistry registry(LockListener listener) {
		return LockTesting.observed(new FairLockRegistry(TopologyScripts.of(this.redis), this.redis.connections(),
				KeyNaming.defaults(), SPEC, List.of(listener), Clock.systemUTC()), listener);
	}

	static String key(String name, String suffix) {
		return suffix.isEmpty() ? KeyNaming.defaults().key("fairlock", name)
				: KeyNaming.defaults().key("fairlock", name, suffix);
	}

	long inLine(String name) {
		try (RedisConnection connection = this.redis.connections().getConnection()) {
			Long count = connection.zSetCommands().zCard(LockTesting.bytes(key(name, "line")));
			return (count != null) ? count : 0;
		}
	}

	void assertNoKeys(String name) {
		for (String suffix : List.of("", "line", "places")) {
			LockTesting.awaitCondition("no key " + key(name, suffix), Duration.ofSeconds(5),
					() -> !this.redis.exists(key(name, suffix)));
		}
	}

	@Test
	void grantsInArrivalOrderAcrossInstances() throws Exception {
		String name = this.redis.unique("fifo");
		List<Integer> arrivals = new ArrayList<>();
		List<Integer> grants = new CopyOnWriteArrayList<>();
		HoldLog holds = new HoldLog();
		try (FairLockRegistry other = registry(new LockTesting.RecordingListener())) {
			Lease holder = this.registry.getLock(name).acquire(Duration.ZERO);
			List<Future<?>> waiters = new ArrayList<>();
			for (int i = 0; i < 6; i++) {
				int waiter = i;
				RedisLock lock = ((i % 2 == 0) ? this.registry : other).getLock(name);
				waiters.add(this.executor.submit(() -> {
					// Threads and leases alike: the line knows owners, not how they hold.
					if (waiter % 3 == 0) {
						lock.lock();
						long entered = HoldLog.now();
						grants.add(waiter);
						holds.record(entered, HoldLog.now(), lock.fencingToken());
						lock.unlock();
					}
					else {
						try (Lease lease = lock.acquire(Duration.ofSeconds(20))) {
							long entered = HoldLog.now();
							grants.add(waiter);
							holds.record(entered, HoldLog.now(), lease.fencingToken());
						}
					}
					return null;
				}));
				// The arrival, as the test sees it: this waiter has its place before the next one starts.
				LockTesting.awaitCondition("waiter " + i + " in line", Duration.ofSeconds(5),
						() -> inLine(name) == waiter + 1);
				arrivals.add(waiter);
			}
			holder.close();
			for (Future<?> waiter : waiters) {
				waiter.get(20, TimeUnit.SECONDS);
			}
		}
		assertThat(grants).as("grant order").containsExactlyElementsOf(arrivals);
		assertThat(holds.violations()).isEmpty();
		assertNoKeys(name);
	}

	@Test
	void isReentrantAndExclusive() throws Exception {
		String name = this.redis.unique("reentrant");
		RedisLock lock = this.registry.getLock(name);
		try (FairLockRegistry other = registry(new LockTesting.RecordingListener())) {
			this.executor.submit(() -> {
				lock.lock();
				long token = lock.fencingToken();
				assertThat(lock.tryLock()).isTrue();
				assertThat(lock.holdCount()).isEqualTo(2);
				assertThat(other.getLock(name).tryAcquire(Duration.ZERO, null)).isEmpty();
				lock.unlock();
				assertThat(lock.fencingToken()).isEqualTo(token);
				assertThat(lock.isLocked()).isTrue();
				lock.unlock();
				assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(lock::unlock);
				return null;
			}).get(20, TimeUnit.SECONDS);
			Lease next = other.getLock(name).acquire(Duration.ZERO);
			next.close();
		}
		assertNoKeys(name);
	}

	@Test
	void leasesEndRenewAndReportLoss() throws Exception {
		String name = this.redis.unique("lease");
		RedisLock lock = this.registry.getLock(name);
		Lease explicit = lock.acquire(Duration.ZERO, Duration.ofMillis(200));
		Lease next = lock.acquire(Duration.ofSeconds(5));
		assertThat(next.fencingToken()).isGreaterThan(explicit.fencingToken());
		assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(explicit::close);
		// Past the watchdog timeout (900 ms, renewed every 300 ms): only renewals keep the hold.
		LockTesting.awaitCondition("four renewals", Duration.ofSeconds(10),
				() -> this.listener.count("renewal " + name + " RENEWED") >= 4);
		assertThat(next.isActive()).isTrue();
		next.close();
		assertThat(this.listener.count("lost " + name)).isEqualTo(1);
		assertNoKeys(name);
	}

	@Test
	void aCancelledAsynchronousWaitLeavesTheLine() throws Exception {
		String name = this.redis.unique("async");
		RedisLock lock = this.registry.getLock(name);
		Lease holder = lock.acquire(Duration.ZERO);
		CompletableFuture<Lease> cancelled = lock.acquireAsync(Duration.ofSeconds(10)).toCompletableFuture();
		LockTesting.awaitCondition("one waiter in line", Duration.ofSeconds(5), () -> inLine(name) == 1);
		CompletableFuture<Lease> waiting = lock.acquireAsync(Duration.ofSeconds(10)).toCompletableFuture();
		LockTesting.awaitCondition("two waiters in line", Duration.ofSeconds(5), () -> inLine(name) == 2);
		cancelled.cancel(false);
		LockTesting.awaitCondition("the cancelled waiter left", Duration.ofSeconds(5), () -> inLine(name) == 1);
		holder.close();
		Lease next = waiting.get(10, TimeUnit.SECONDS);
		assertThat(next.fencingToken()).isGreaterThan(holder.fencingToken());
		next.releaseAsync().toCompletableFuture().get(10, TimeUnit.SECONDS);
		assertNoKeys(name);
	}

	/**
	 * A caller whose own deadline ends its stage ({@code orTimeout}) ends the wait at once: it leaves the line while
	 * the holder still holds the lock, minutes before its own wait time, and is reported as a timeout, as the caller
	 * saw it; the waiter behind it moves up and gets the lock.
	 */
	@Test
	void aStageTheCallersDeadlineEndsLeavesTheLineAtOnce() throws Exception {
		String name = this.redis.unique("caller-timeout");
		LockTesting.RecordingListener waiting = new LockTesting.RecordingListener();
		try (FairLockRegistry waiter = registry(waiting)) {
			Lease holder = this.registry.getLock(name).acquire(Duration.ZERO);
			CompletableFuture<Lease> timedOut = waiter.getLock(name).acquireAsync(Duration.ofMinutes(5))
				.toCompletableFuture();
			LockTesting.awaitCondition("one waiter in line", Duration.ofSeconds(5), () -> inLine(name) == 1);
			CompletableFuture<Lease> next = this.registry.getLock(name).acquireAsync(Duration.ofSeconds(30))
				.toCompletableFuture();
			LockTesting.awaitCondition("two waiters in line", Duration.ofSeconds(5), () -> inLine(name) == 2);
			timedOut.orTimeout(1, TimeUnit.MILLISECONDS);
			LockTesting.awaitCondition("the timed-out waiter left", Duration.ofSeconds(10), () -> inLine(name) == 1);
			LockTesting.awaitCondition("the outcome of its wait", Duration.ofSeconds(10),
					() -> waiting.count("acquire " + name) >= 1);
			assertThat(waiting.events).containsExactly("acquire " + name + " TIMEOUT");
			assertThat(waiter.heldLocks()).isEmpty();
			holder.close();
			Lease taken = next.get(10, TimeUnit.SECONDS);
			assertThat(taken.fencingToken()).isGreaterThan(holder.fencingToken());
			taken.close();
		}
		assertNoKeys(name);
	}

	/**
	 * The caller cancels as a grant is handed over (as the hold's observation starts, after the wait checked for a
	 * cancel, before the stage takes the lease): the wait is interrupted, never acquired, and leaves the lock free
	 * and the line empty, with no release reported.
	 */
	@Test
	void aCancelAsTheGrantIsHandedOverIsReportedAsInterruptedAndLeavesNothing() throws Exception {
		String name = this.redis.unique("handover");
		LockTesting.RecordingListener waiting = new LockTesting.RecordingListener();
		try (FairLockRegistry waiter = registry(waiting)) {
			Lease holder = this.registry.getLock(name).acquire(Duration.ZERO);
			CompletableFuture<Lease> wait = waiter.getLock(name).acquireAsync(Duration.ofSeconds(10)).toCompletableFuture();
			LockTesting.awaitCondition("one waiter in line", Duration.ofSeconds(5), () -> inLine(name) == 1);
			AtomicReference<Boolean> cancelled = new AtomicReference<>();
			waiting.onNextHoldStart(() -> cancelled.set(wait.cancel(false)));
			holder.close();
			LockTesting.awaitCondition("the outcome of the wait", Duration.ofSeconds(10),
					() -> waiting.count("acquire " + name) >= 1);
			assertThat(cancelled.get()).as("cancelled as the grant was handed over").isTrue();
			assertThat(wait).isCancelled();
			LockTesting.awaitCondition("no hold left", Duration.ofSeconds(10), () -> waiter.heldLocks().isEmpty());
			Lease next = this.registry.getLock(name).acquire(Duration.ofSeconds(10));
			assertThat(next.fencingToken()).isGreaterThan(holder.fencingToken());
			next.close();
		}
		assertThat(waiting.events).as("one outcome, and no release").containsExactly("acquire " + name + " INTERRUPTED");
		assertNoKeys(name);
	}

}
