package io.rediskit.lock;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.ObservationRecorder;
import io.rediskit.support.Observations;
import io.rediskit.support.RedisKitObservation;
import io.rediskit.support.RedisTestServer;
import io.rediskit.support.ScopeRecordingScripts;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** The lock family's observations: a wait and a hold per acquisition, with their documented tags and ends. */
class LockObservationTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	final TestObservationRegistry observed = TestObservationRegistry.create();

	final ObservationRecorder recorder = new ObservationRecorder();

	LockRegistry registry;

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.observed.observationConfig().observationHandler(this.recorder);
		this.registry = new LockRegistry(redis.scripts(), redis.connections(), KeyNaming.defaults(),
				LockSpec.defaults(), List.of(), Clock.systemUTC());
		this.registry.setObservations(Observations.of(this.observed, null));
	}

	@AfterEach
	void tearDown() {
		this.registry.close();
	}

	@Test
	void anAcquisitionIsAWaitThenAHoldTaggedWithTheGroupNotTheKey() throws Exception {
		RedisLock lock = this.registry.getLock("orders", "customer-42");
		assertThat(lock.tryLock(Duration.ofSeconds(5))).isTrue();
		assertThat(lock.tryLock(Duration.ofSeconds(5))).as("re-entry").isTrue();
		lock.unlock();
		assertThat(this.recorder.open(RedisKitObservation.LOCK_HOLD)).as("held once more").hasSize(1);
		lock.unlock();
		TestObservationRegistryAssert.assertThat(this.observed)
			.hasNumberOfObservationsWithNameEqualTo("rediskit.lock.wait", 2)
			.hasNumberOfObservationsWithNameEqualTo("rediskit.lock.hold", 1)
			.forAllObservationsWithNameEqualTo("rediskit.lock.wait", (wait) -> wait
				.hasContextualNameEqualTo("lock wait orders")
				.hasLowCardinalityKeyValue("name", "orders")
				.hasLowCardinalityKeyValue("kind", "lock")
				.hasLowCardinalityKeyValue("outcome", "acquired")
				.doesNotHaveError())
			.forAllObservationsWithNameEqualTo("rediskit.lock.hold", (hold) -> hold
				.hasLowCardinalityKeyValue("name", "orders")
				.hasLowCardinalityKeyValue("kind", "lock")
				.hasLowCardinalityKeyValue("outcome", "released")
				.doesNotHaveError());
		assertThat(this.recorder.open(RedisKitObservation.LOCK_HOLD)).isEmpty();
		assertThat(this.recorder.stopped(RedisKitObservation.LOCK_WAIT)).allSatisfy((context) -> assertThat(
				context.getLowCardinalityKeyValues().stream().map((value) -> value.getValue()))
			.doesNotContain("customer-42"));
	}

	@Test
	void aWaitThatTimesOutEndsItsObservationWithTheError() throws Exception {
		RedisLock lock = this.registry.getLock("orders");
		Lease other = lock.acquireAsync(Duration.ZERO).toCompletableFuture().get(5, TimeUnit.SECONDS);
		assertThatExceptionOfType(LockNotAcquiredException.class)
			.isThrownBy(() -> lock.acquire(Duration.ofMillis(50)));
		assertThat(lock.tryLock()).isFalse();
		other.close();
		List<Observation.Context> timedOut = this.recorder.stopped(RedisKitObservation.LOCK_WAIT)
			.stream()
			.filter((context) -> ObservationRecorder.outcome(context).equals("timeout"))
			.toList();
		assertThat(timedOut).hasSize(2)
			.allSatisfy((context) -> assertThat(context.getError()).isInstanceOf(LockNotAcquiredException.class));
	}

	@Test
	void aTryThatFindsTheLockHeldIsSkippedWithoutAnError() throws Exception {
		RedisLock lock = this.registry.getLock("leader", "billing");
		Optional<Lease> first = lock.tryAcquireRenewedAsync("a").toCompletableFuture().get(5, TimeUnit.SECONDS);
		assertThat(first).isPresent();
		assertThat(lock.holder()).map(RedisLock.Holder::name).contains("a");
		assertThat(lock.tryAcquireRenewedAsync("b").toCompletableFuture().get(5, TimeUnit.SECONDS)).isEmpty();
		first.get().close();
		assertThat(this.recorder.stopped(RedisKitObservation.LOCK_WAIT)).extracting(ObservationRecorder::outcome)
			.containsExactly("acquired", "skipped");
		assertThat(this.recorder.stopped(RedisKitObservation.LOCK_WAIT))
			.allSatisfy((context) -> assertThat(context.getError()).isNull());
		assertThatIllegalArgumentException().isThrownBy(() -> lock.tryAcquireRenewedAsync("a/b"))
			.withMessageContaining("holderName");
	}

	@Test
	void aCancelledAsynchronousWaitLeavesNoObservationOpen() throws Exception {
		RedisLock lock = this.registry.getLock("orders");
		Lease other = lock.acquireAsync(Duration.ZERO).toCompletableFuture().get(5, TimeUnit.SECONDS);
		// An asynchronous wait is reported acquired once its stage took the lease: just after its caller can go on.
		LockTesting.awaitCondition("the first wait ended", Duration.ofSeconds(10),
				() -> this.recorder.open(RedisKitObservation.LOCK_WAIT).isEmpty());
		CompletableFuture<Lease> waiting = lock.acquireAsync(Duration.ofMinutes(5)).toCompletableFuture();
		assertThat(this.recorder.open(RedisKitObservation.LOCK_WAIT)).hasSize(1);
		waiting.cancel(false);
		LockTesting.awaitCondition("the cancelled wait ended", Duration.ofSeconds(30),
				() -> this.recorder.open(RedisKitObservation.LOCK_WAIT).isEmpty());
		assertThat(this.recorder.stopped(RedisKitObservation.LOCK_WAIT)).extracting(ObservationRecorder::outcome)
			.containsExactly("acquired", "interrupted");
		other.close();
		assertThat(this.recorder.open(RedisKitObservation.LOCK_HOLD)).isEmpty();
	}

	@Test
	void aLostLeaseEndsTheHoldAsLostWithTheError() throws Exception {
		RedisLock lock = this.registry.getLock("orders");
		Lease lease = lock.acquireAsync(Duration.ZERO, Duration.ofMinutes(1)).toCompletableFuture()
			.get(5, TimeUnit.SECONDS);
		// Another owner's view: the key is gone before this holder released it.
		redis.server().command("DEL", "rk:lock:{orders}");
		assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(lease::close);
		assertThat(this.recorder.stopped(RedisKitObservation.LOCK_HOLD)).singleElement().satisfies((hold) -> {
			assertThat(ObservationRecorder.outcome(hold)).isEqualTo("lost");
			assertThat(hold.getError()).isInstanceOf(LockLeaseLostException.class);
		});
		assertThat(this.recorder.open(RedisKitObservation.LOCK_HOLD)).isEmpty();
	}

	@Test
	void nothingIsObservedWithTheNoopRegistry() throws Exception {
		this.registry.setObservations(Observations.NOOP);
		RedisLock lock = this.registry.getLock("orders");
		assertThat(lock.tryLock(Duration.ofSeconds(5))).isTrue();
		lock.unlock();
		TestObservationRegistryAssert.assertThat(this.observed).doesNotHaveAnyObservation();
	}

	@Test
	void aMultiKeyAcquisitionIsAWaitAndAHoldPerNameTaggedWithTheGroup() throws Exception {
		MultiLock transfer = this.registry.getMultiLock("accounts", List.of("1", "2"));
		try (MultiLock.MultiLease lease = transfer.acquire(Duration.ofSeconds(5))) {
			assertThat(this.recorder.open(RedisKitObservation.LOCK_WAIT)).isEmpty();
			assertThat(this.recorder.open(RedisKitObservation.LOCK_HOLD)).hasSize(2);
		}
		TestObservationRegistryAssert.assertThat(this.observed)
			.hasNumberOfObservationsWithNameEqualTo("rediskit.lock.wait", 2)
			.hasNumberOfObservationsWithNameEqualTo("rediskit.lock.hold", 2)
			.forAllObservationsWithNameEqualTo("rediskit.lock.wait", (wait) -> wait
				.hasContextualNameEqualTo("lock wait accounts")
				.hasLowCardinalityKeyValue("name", "accounts")
				.hasLowCardinalityKeyValue("kind", "lock")
				.hasLowCardinalityKeyValue("outcome", "acquired")
				.doesNotHaveError())
			.forAllObservationsWithNameEqualTo("rediskit.lock.hold", (hold) -> hold
				.hasLowCardinalityKeyValue("name", "accounts")
				.hasLowCardinalityKeyValue("outcome", "released"));
		assertThat(this.recorder.open(RedisKitObservation.LOCK_HOLD)).isEmpty();
	}

	@Test
	void aMultiKeyWaitThatTimesOutOrIsCancelledEndsEveryNamesWait() throws Exception {
		Lease busy = this.registry.getLock("accounts", "2").acquireAsync(Duration.ZERO).toCompletableFuture()
			.get(5, TimeUnit.SECONDS);
		MultiLock transfer = this.registry.getMultiLock("accounts", List.of("1", "2"));
		assertThat(transfer.tryAcquire(Duration.ofMillis(50), null)).isEmpty();
		assertThat(this.recorder.stopped(RedisKitObservation.LOCK_WAIT)).filteredOn(
				(context) -> ObservationRecorder.outcome(context).equals("timeout"))
			.hasSize(2)
			.allSatisfy((context) -> assertThat(context.getError()).isInstanceOf(LockNotAcquiredException.class));
		CompletableFuture<MultiLock.MultiLease> waiting = transfer.acquireAsync(Duration.ofMinutes(5), null)
			.toCompletableFuture();
		assertThat(this.recorder.open(RedisKitObservation.LOCK_WAIT)).hasSize(2);
		waiting.cancel(false);
		// Ended by the cancel: at once between two attempts, else when the step in flight replies (what it took is
		// given back first).
		LockTesting.awaitCondition("every name's wait ended by the cancel", Duration.ofSeconds(30),
				() -> this.recorder.open(RedisKitObservation.LOCK_WAIT).isEmpty());
		assertThat(this.recorder.stopped(RedisKitObservation.LOCK_WAIT)).extracting(ObservationRecorder::outcome)
			.containsExactly("acquired", "timeout", "timeout", "interrupted", "interrupted");
		busy.close();
		LockTesting.awaitCondition("every hold ended", Duration.ofSeconds(30),
				() -> this.recorder.open(RedisKitObservation.LOCK_HOLD).isEmpty());
	}

	/**
	 * The lock's timings are its observations: with nothing observing, the start, the scope and the end of a wait
	 * and the scope and the end of a hold allocate nothing, where they allocated a {@code Duration} and a listener's lambda per call
	 * (at least 40 bytes) while they were reported to the listeners. One object a call would be 1.6 MB over the
	 * calls; the bound leaves room for what the measurement itself allocates, never for a per-call object.
	 */
	@Test
	void withNothingObservingAWaitAndAHoldEndAllocateNothing() throws Exception {
		com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory
			.getThreadMXBean();
		assertThat(threads.isThreadAllocatedMemorySupported()).isTrue();
		this.registry.setObservations(Observations.NOOP);
		RedisLock lock = this.registry.getLock("orders");
		Lease lease = lock.acquireAsync(Duration.ZERO).toCompletableFuture().get(5, TimeUnit.SECONDS);
		LockHold hold = this.registry.shell().parts().holds().all().iterator().next();
		long thread = Thread.currentThread().getId();
		int calls = 100_000;
		long least = Long.MAX_VALUE;
		for (int round = 0; round < 4; round++) {
			long before = threads.getThreadAllocatedBytes(thread);
			for (int i = 0; i < calls; i++) {
				long started = System.nanoTime();
				Observation wait = lock.startWait();
				try (Observation.Scope scope = wait.openScope()) {
					lock.report(AcquireResult.ACQUIRED, started, wait);
				}
				lock.report(AcquireResult.TIMEOUT, started, lock.startWait());
				try (Observation.Scope scope = hold.openObservationScope()) {
					hold.endObservation("released", null);
				}
			}
			least = Math.min(least, threads.getThreadAllocatedBytes(thread) - before);
		}
		assertThat(least).isLessThan(64 * 1024);
		lease.close();
		TestObservationRegistryAssert.assertThat(this.observed).doesNotHaveAnyObservation();
	}

	/**
	 * Each script of a wait is dispatched with the wait in scope (so a driver's command span is the wait's child),
	 * the first attempt on the caller's thread and the one after the holder's release on whichever thread wakes the
	 * waiter; the release is dispatched with the hold in scope. No scope is left open on any thread.
	 */
	@Test
	void scriptsAreSentInsideTheirWaitsAndHoldsScopeAndTheScopeDoesNotLeak() throws Exception {
		ScopeRecordingScripts scripts = new ScopeRecordingScripts(redis.scripts(), this.observed);
		try (LockRegistry recorded = new LockRegistry(scripts, redis.connections(), KeyNaming.defaults(),
				LockSpec.defaults(), List.of(), Clock.systemUTC())) {
			recorded.setObservations(Observations.of(this.observed, null));
			RedisLock lock = recorded.getLock("orders");
			lock.lock();
			lock.unlock();
			assertThat(scripts.dispatched).containsExactly("rediskit.lock.wait", "rediskit.lock.hold");
			scripts.dispatched.clear();
			Lease holder = lock.acquireAsync(Duration.ZERO).toCompletableFuture().get(5, TimeUnit.SECONDS);
			CompletableFuture<Lease> waiting = lock.acquireAsync(Duration.ofMinutes(1)).toCompletableFuture();
			LockTesting.awaitCondition("the waiter's first attempt", Duration.ofSeconds(10),
					() -> scripts.dispatched.size() >= 2);
			holder.close();
			waiting.get(30, TimeUnit.SECONDS).close();
			assertThat(scripts.dispatched).as("acquire, wait's first attempt, release, wait's later attempts, release")
				.startsWith("rediskit.lock.wait", "rediskit.lock.wait", "rediskit.lock.hold")
				.endsWith("rediskit.lock.wait", "rediskit.lock.hold")
				.doesNotContain("none");
			MultiLock transfer = recorded.getMultiLock("accounts", List.of("1", "2"));
			scripts.dispatched.clear();
			transfer.acquire(Duration.ofSeconds(5)).close();
			assertThat(scripts.dispatched).as("the set's script in the first name's wait, each release in its hold")
				.containsExactly("rediskit.lock.wait", "rediskit.lock.hold", "rediskit.lock.hold");
		}
		assertThat(this.observed.getCurrentObservation()).as("no scope left open on the caller's thread").isNull();
		assertThat(scripts.completed).as("none open on the threads that completed the calls").allMatch("none"::equals);
	}

	/**
	 * A blocking caller waits for its first attempt and its release anyway: an uncontended write lock, fair lock
	 * and semaphore take their hold, start its observation and end it on the caller's thread, not on the driver's
	 * one I/O thread that every caller shares, and still send the attempt in the wait's scope and the release in
	 * the hold's.
	 */
	@Test
	void anUncontendedBlockingAcquisitionTakesAndEndsItsHoldOnTheCallersThread() throws Exception {
		ScopeRecordingScripts scripts = new ScopeRecordingScripts(redis.scripts(), this.observed);
		List<String> holdThreads = new CopyOnWriteArrayList<>();
		this.observed.observationConfig().observationHandler(new ObservationHandler<>() {

			@Override
			public void onStart(Observation.Context context) {
				if (RedisKitObservation.LOCK_HOLD.getName().equals(context.getName())) {
					holdThreads.add("start " + Thread.currentThread().getName());
				}
			}

			@Override
			public void onStop(Observation.Context context) {
				if (RedisKitObservation.LOCK_HOLD.getName().equals(context.getName())) {
					holdThreads.add("stop " + Thread.currentThread().getName());
				}
			}

			@Override
			public boolean supportsContext(Observation.Context context) {
				return true;
			}

		});
		String caller = Thread.currentThread().getName();
		try (ReadWriteLockRegistry readWrite = new ReadWriteLockRegistry(scripts, redis.connections(),
				KeyNaming.defaults(), WaiterLineSpec.defaults(), List.of(), Clock.systemUTC());
				FairLockRegistry fair = new FairLockRegistry(scripts, redis.connections(), KeyNaming.defaults(),
						WaiterLineSpec.defaults(), List.of(), Clock.systemUTC());
				SemaphoreRegistry semaphores = new SemaphoreRegistry(scripts, redis.connections(),
						KeyNaming.defaults(), LockSpec.defaults(), List.of(), Clock.systemUTC())) {
			readWrite.setObservations(Observations.of(this.observed, null));
			fair.setObservations(Observations.of(this.observed, null));
			semaphores.setObservations(Observations.of(this.observed, null));
			Lock write = readWrite.getReadWriteLock("orders").writeLock();
			write.lock();
			write.unlock();
			RedisLock queue = fair.getLock("orders");
			queue.lock();
			queue.unlock();
			semaphores.getSemaphore("reports", 2).acquire(1, Duration.ZERO).close();
			assertThat(holdThreads).containsExactly("start " + caller, "stop " + caller, "start " + caller,
					"stop " + caller, "start " + caller, "stop " + caller);
			assertThat(scripts.dispatched).containsExactly("rediskit.lock.wait", "rediskit.lock.hold",
					"rediskit.lock.wait", "rediskit.lock.hold", "rediskit.lock.wait", "rediskit.lock.hold");
		}
		assertThat(this.observed.getCurrentObservation()).as("no scope left open on the caller's thread").isNull();
		TestObservationRegistryAssert.assertThat(this.observed)
			.forAllObservationsWithNameEqualTo("rediskit.lock.hold",
					(hold) -> hold.hasLowCardinalityKeyValue("outcome", "released").doesNotHaveError())
			.forAllObservationsWithNameEqualTo("rediskit.lock.wait",
					(wait) -> wait.hasLowCardinalityKeyValue("outcome", "acquired").doesNotHaveError());
	}

}
